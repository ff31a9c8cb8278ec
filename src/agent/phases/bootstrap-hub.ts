// Which hub to join and how the agent will earn and keep credentials for it: the bootstrap
// kubeconfig (with MultipleHubs, the first candidate that answers and accepts this cluster), the
// driver that asks that hub for a client certificate (the CSR driver over the hub's API, or the gRPC
// driver over its CloudEvents server), and the keys saved beside the certificate in the hub
// kubeconfig secret. Every run decides this afresh, even with valid credentials, because the
// credentials are only valid for the hub the bootstrap kubeconfig points at.

import { hubSecretKeys } from '../../api/constants.js';
import type { Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import { selectBootstrapKubeconfigIndex } from '../hubs/index.js';
import { gateEnabled, type SpokeAgentOptions } from '../options/agent-options.js';
import { createCsrDriver, type CsrDriver } from '../register/csr/csr-driver.js';
import type { createCloudEventsHubClient } from '../register/grpc/cloudevents-hub-client.js';
import type { createGrpcRegistration, GrpcFiles } from '../register/grpc/grpc-registration.js';
import type { grpcHubConfigMatches, openHubConnection } from '../register/grpc/hub-connection.js';
import { buildHubKubeconfig } from '../register/hub-kubeconfig.js';
import { loadCurrentCluster } from '../register/raw-kubeconfig.js';
import { AgentConfigError } from './config-error.js';
import type { AgentNames } from './prepare.js';

export interface BootstrapHubInput {
  options: Pick<
    SpokeAgentOptions,
    'featureGates' | 'bootstrapKubeconfig' | 'bootstrapKubeconfigs' | 'registrationAuth' | 'clientCertExpirationSeconds' | 'grpcBootstrapConfig' | 'grpcConfig' | 'hubKubeconfigDir'
  >;
  names: AgentNames;
  log: Logger;
  clock: Clock;
  random: () => number;
}

/**
 * The gRPC driver's functions the phases call. Its modules (the CloudEvents client, codecs, config
 * and proto loading) are imported only when the agent runs with `--registration-auth grpc`: loaded
 * in every agent they cost ~0.3 MiB of resident memory that a CSR agent never uses (bench/agent.ts:
 * 54.0 → 53.7 MiB).
 */
interface GrpcModules {
  createGrpcRegistration: typeof createGrpcRegistration;
  grpcHubConfigMatches: typeof grpcHubConfigMatches;
  openHubConnection: typeof openHubConnection;
  createCloudEventsHubClient: typeof createCloudEventsHubClient;
}

async function loadGrpcModules(): Promise<GrpcModules> {
  const [registration, connection, client] = await Promise.all([
    import('../register/grpc/grpc-registration.js'),
    import('../register/grpc/hub-connection.js'),
    import('../register/grpc/cloudevents-hub-client.js'),
  ]);
  return {
    createGrpcRegistration: registration.createGrpcRegistration,
    grpcHubConfigMatches: connection.grpcHubConfigMatches,
    openHubConnection: connection.openHubConnection,
    createCloudEventsHubClient: client.createCloudEventsHubClient,
  };
}

/**
 * How the agent reaches the hub: its API server, or (gRPC driver) its CloudEvents server, with the
 * driver's loaded modules.
 */
export type HubTransport = { kind: 'rest' } | ({ kind: 'grpc'; modules: GrpcModules } & GrpcFiles);

export interface BootstrapHub {
  /** Path of the bootstrap kubeconfig in use ('' with the gRPC driver when none is given). */
  kubeconfigFile: string;
  /** Its server URL: the hub's identity for the status controller's managed namespaces. */
  serverUrl: string;
  /** Earns the cluster's client certificate; the same driver serves the bootstrap and main phases. */
  driver: CsrDriver;
  /** Keys forced into the hub kubeconfig secret next to the certificate. */
  additionalData: Record<string, Buffer>;
  transport: HubTransport;
}

export async function chooseBootstrapHub(i: BootstrapHubInput, signal: AbortSignal): Promise<BootstrapHub> {
  const opts = i.options;
  const { clusterName, agentId } = i.names;
  const kubeconfigFile = gateEnabled(opts, 'MultipleHubs') ? await selectAmongHubs(i, signal) : opts.bootstrapKubeconfig;
  if (opts.registrationAuth === 'awsirsa') {
    throw new AgentConfigError(`registration auth ${JSON.stringify(opts.registrationAuth)} is not supported by ocm-ts`);
  }
  const names: Record<string, Buffer> = { [hubSecretKeys.clusterName]: Buffer.from(clusterName), [hubSecretKeys.agentName]: Buffer.from(agentId) };
  if (opts.registrationAuth === 'grpc') return grpcHub(i, kubeconfigFile, names, await loadGrpcModules());
  if (kubeconfigFile === '') throw new AgentConfigError('bootstrap-kubeconfig is required');
  const driver = createCsrDriver({ clusterName, agentName: agentId, expirationSeconds: opts.clientCertExpirationSeconds, log: i.log, clock: i.clock, random: i.random,
    v1beta1Compatibility: gateEnabled(opts, 'V1beta1CSRAPICompatibility') });
  const bootstrapCluster = loadCurrentCluster(kubeconfigFile);
  return {
    kubeconfigFile,
    serverUrl: bootstrapCluster.server,
    driver,
    additionalData: { [hubSecretKeys.kubeconfig]: buildHubKubeconfig(bootstrapCluster), ...names },
    transport: { kind: 'rest' },
  };
}

/**
 * The gRPC driver. As in OCM, a bootstrap kubeconfig is optional: when given, it still names the
 * hub (the hub kubeconfig is derived from it and compared with it); without one, the gRPC server's
 * address does.
 */
function grpcHub(i: BootstrapHubInput, kubeconfigFile: string, names: Record<string, Buffer>, modules: GrpcModules): BootstrapHub {
  const opts = i.options;
  const files = { bootstrapConfigFile: opts.grpcBootstrapConfig, configFile: opts.grpcConfig };
  const grpc = modules.createGrpcRegistration({ files, clusterName: i.names.clusterName, agentName: i.names.agentId, hubKubeconfigDir: opts.hubKubeconfigDir,
    expirationSeconds: opts.clientCertExpirationSeconds, log: i.log, clock: i.clock, random: i.random });
  const bootstrapCluster = kubeconfigFile !== '' ? loadCurrentCluster(kubeconfigFile) : undefined;
  return {
    kubeconfigFile,
    serverUrl: bootstrapCluster?.server ?? grpc.url,
    driver: grpc.driver,
    additionalData: {
      ...(bootstrapCluster ? { [hubSecretKeys.kubeconfig]: buildHubKubeconfig(bootstrapCluster) } : {}),
      ...names,
      ...grpc.additionalData,
    },
    transport: { kind: 'grpc', modules, ...files },
  };
}

async function selectAmongHubs(i: BootstrapHubInput, signal: AbortSignal): Promise<string> {
  const candidates = i.options.bootstrapKubeconfigs;
  let index: number;
  try {
    index = await selectBootstrapKubeconfigIndex({ clusterName: i.names.clusterName, hubKubeconfigFile: i.names.hubKubeconfigFile, candidates, log: i.log, signal });
  } catch (err) {
    throw new Error(`failed to select a bootstrap kubeconfig: ${errorMessage(err)}`, { cause: err });
  }
  const file = candidates[index]!;
  i.log.info(`Select bootstrap kubeconfig with index ${index} and file ${file}`, { reason: 'BootstrapSelected' });
  return file;
}
