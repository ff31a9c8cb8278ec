// The hub client of a phase: with the CSR driver, a REST client of the hub's API server built from
// the bootstrap kubeconfig (bootstrap phase) or the hub kubeconfig (main phase); with the gRPC
// driver, the same client interface carried as CloudEvents to the hub's gRPC server, connected with
// the gRPC bootstrap config or the gRPC hub config. Either is built from file paths, so rotated
// credentials are read again.

import { createKubeClient } from '../../client/rest-client.js';
import type { KubeClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import type { HubTransport } from './bootstrap-hub.js';

export interface HubClientInput {
  phase: 'bootstrap' | 'main';
  transport: HubTransport;
  /** The kubeconfig of the phase (bootstrap or hub kubeconfig); REST only. */
  kubeconfigFile: string;
  clusterName: string;
  rateLimit?: { qps: number; burst: number };
  log: Logger;
  clock: Clock;
  random: () => number;
  userAgent: string;
}

export function openHubClient(i: HubClientInput): KubeClient {
  if (i.transport.kind === 'grpc') {
    const bootstrap = i.phase === 'bootstrap';
    const configFile = bootstrap ? i.transport.bootstrapConfigFile : i.transport.configFile;
    const what = bootstrap ? 'hub bootstrap registration config' : 'hub registration config';
    if (configFile === '') throw new Error(`no ${what} file given (${bootstrap ? '--grpc-bootstrap-config' : '--grpc-config'})`);
    const { openHubConnection, createCloudEventsHubClient } = i.transport.modules;
    const connection = openHubConnection({ configFile, what });
    return createCloudEventsHubClient({ connection, clusterName: i.clusterName, log: i.log, clock: i.clock, random: i.random });
  }
  const what = i.phase === 'bootstrap' ? 'bootstrap kubeconfig' : 'hub kubeconfig';
  try {
    return createKubeClient({ kubeconfigPath: i.kubeconfigFile }, { log: i.log, userAgent: i.userAgent, ...(i.rateLimit ? { rateLimit: i.rateLimit } : {}) });
  } catch (err) {
    throw new Error(`unable to load ${what} from file ${JSON.stringify(i.kubeconfigFile)}: ${errorMessage(err)}`, { cause: err });
  }
}
