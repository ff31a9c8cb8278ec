// A hub for integration tests: embedded API server (OCM admission, hub CRDs installed) and the hub
// manager against it over HTTPS with the admin kubeconfig, with shortened timings. Every log line of
// the hub controllers is kept in `logs`, so a test can count their runs.

import 'reflect-metadata';
import { ocmAdmissionPlugins } from '../../src/apiserver/admission/index.js';
import { HUB_CRD_NAMES } from '../../src/api/crds.js';
import type { KubeClient } from '../../src/client/types.js';
import { startHubManager, type HubManager } from '../../src/hub/hub-manager.js';
import type { HubOptionsInput } from '../../src/hub/options.js';
import type { Clock } from '../../src/util/clock.js';
import type { TestApiServer } from '../helpers/embedded-server.js';
import { startOcmApiServer } from '../helpers/ocm-api-server.js';
import { captureLog, type CapturedLog } from '../helpers/test-log.js';

export interface HubFixture {
  server: TestApiServer;
  /** Admin client for the test's own reads and writes. */
  admin: KubeClient;
  hub: HubManager | undefined;
  /** The hub controllers' log lines (debug level), e.g. to count runs with logs.reconciles(). */
  logs: CapturedLog;
  startHub(options?: HubOptionsInput, listen?: string): Promise<HubManager>;
  stopHub(): Promise<void>;
  stop(): Promise<void>;
}

export interface HubFixtureOptions {
  /** Options of the hub manager started at once, or false to start it later with startHub(). */
  hub?: HubOptionsInput | false;
  extraCrds?: string[];
  /** The hub controllers' clock (default real time), e.g. a manual clock. */
  clock?: Clock;
}

export const FAST_TIMINGS = { cleanupRequeueMs: 100, defaultSetResyncMs: 200 } as const;

export async function startHubFixture(opts: HubFixtureOptions = {}): Promise<HubFixture> {
  const api = await startOcmApiServer({
    crds: [...HUB_CRD_NAMES, ...(opts.extraCrds ?? [])],
    server: { admission: ocmAdmissionPlugins({ featureGates: { DefaultClusterSet: true } }) },
  });
  let ac: AbortController | undefined;
  const fx: HubFixture = {
    server: api.server,
    admin: api.admin,
    hub: undefined,
    logs: captureLog(),
    async startHub(options: HubOptionsInput = {}, listen?: string) {
      ac = new AbortController();
      fx.hub = await startHubManager({
        kubeconfigPath: api.server.adminKubeconfigPath,
        options: { ...options, timings: { ...FAST_TIMINGS, ...(options.timings ?? {}) } },
        log: fx.logs.log,
        signal: ac.signal,
        ...(opts.clock ? { clock: opts.clock } : {}),
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
      await api.stop();
    },
  };
  if (opts.hub !== false) await fx.startHub(opts.hub ?? {});
  return fx;
}
