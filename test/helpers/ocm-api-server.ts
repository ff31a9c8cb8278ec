// An embedded API server prepared for one side of OCM: the hub's CRDs (ManagedCluster, sets,
// add-ons...) or a managed cluster's (ClusterClaim, ClusterProperty), or both when one server plays
// both parts, installed and Established, with an admin client. The building block of the hub, agent
// and controller fixtures.

import { loadCrds } from '../../src/api/crds.js';
import { createKubeClient } from '../../src/client/rest-client.js';
import type { KubeClient } from '../../src/client/types.js';
import { installCrds } from '../../src/hub/install-crds.js';
import { realClock } from '../../src/util/clock.js';
import { startTestApiServer, type TestApiServer, type TestApiServerOptions } from './embedded-server.js';

export interface OcmApiServer {
  server: TestApiServer;
  /** system:masters client. */
  admin: KubeClient;
  /** Closes the admin client, then stops the server. */
  stop(): Promise<void>;
}

export async function startOcmApiServer(opts: { crds: readonly string[]; server?: TestApiServerOptions }): Promise<OcmApiServer> {
  const server = await startTestApiServer(opts.server);
  const admin = createKubeClient({ kubeconfigPath: server.adminKubeconfigPath });
  try {
    await installCrds(admin, loadCrds(opts.crds), { clock: realClock });
  } catch (err) {
    admin.close();
    await server.stop();
    throw err;
  }
  return {
    server,
    admin,
    async stop() {
      admin.close();
      await server.stop();
    },
  };
}
