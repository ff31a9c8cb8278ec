// A hub for integration tests: embedded API server (OCM admission, hub CRDs installed) and the hub
// manager against it over HTTPS with the admin kubeconfig, with shortened timings.

import 'reflect-metadata';
import { ocmAdmissionPlugins } from '../../src/apiserver/admission/index.js';
import { HUB_CRD_NAMES, loadCrds } from '../../src/api/crds.js';
import { createKubeClient } from '../../src/client/index.js';
import type { KubeClient } from '../../src/client/types.js';
import { startHubManager, type HubManager } from '../../src/hub/hub-manager.js';
import { installCrds } from '../../src/hub/install-crds.js';
import type { HubOptionsInput } from '../../src/hub/options.js';
import { realClock } from '../../src/util/clock.js';
import { createLogger, nullLogger } from '../../src/util/logger.js';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';

export interface HubFixture {
  server: TestApiServer;
  /** Admin client for the test's own reads and writes. */
  admin: KubeClient;
  hub: HubManager | undefined;
  startHub(options?: HubOptionsInput, listen?: string): Promise<HubManager>;
  stopHub(): Promise<void>;
  stop(): Promise<void>;
}

export const FAST_TIMINGS = { cleanupRequeueMs: 100, defaultSetResyncMs: 200 } as const;

function testLog() {
  const env = process.env.OCM_TS_TEST_LOG;
  return env === 'debug' || env === 'info' || env === 'warn' || env === 'error' ? createLogger({ level: env }) : nullLogger();
}

export async function startHubFixture(opts: { hub?: HubOptionsInput | false; extraCrds?: string[] } = {}): Promise<HubFixture> {
  const server = await startTestApiServer({ admission: ocmAdmissionPlugins({ featureGates: { DefaultClusterSet: true } }) });
  const admin = createKubeClient({ kubeconfigPath: server.adminKubeconfigPath });
  await installCrds(admin, loadCrds([...HUB_CRD_NAMES, ...(opts.extraCrds ?? [])]), { clock: realClock });
  let ac: AbortController | undefined;
  const fx: HubFixture = {
    server,
    admin,
    hub: undefined,
    async startHub(options: HubOptionsInput = {}, listen?: string) {
      ac = new AbortController();
      fx.hub = await startHubManager({
        kubeconfigPath: server.adminKubeconfigPath,
        options: { ...options, timings: { ...FAST_TIMINGS, ...(options.timings ?? {}) } },
        log: testLog(),
        signal: ac.signal,
        ...(listen !== undefined ? { listen } : {}),
      });
      return fx.hub;
    },
    async stopHub() {
      ac?.abort();
      await fx.hub?.done;
      fx.hub = undefined;
    },
    async stop() {
      await fx.stopHub();
      admin.close();
      await server.stop();
    },
  };
  if (opts.hub !== false) await fx.startHub(opts.hub ?? {});
  return fx;
}
