// The gRPC registration driver, as OCM's agent has it: the cluster's CSR flow with the
// `open-cluster-management.io/grpc` signer (the hub's gRPC server signs these with its own CA), its
// requests carried as CloudEvents, and the hub kubeconfig secret completed with `config.yaml`: the
// gRPC config the agent uses once joined, naming the certificate and key it earned. The bootstrap
// config (`--grpc-bootstrap-config`) is what the agent joins with; the hub config (`--grpc-config`)
// is the secret's `config.yaml` as copied to the hub kubeconfig directory.

import { names } from '../../../api/constants.js';
import type { Clock } from '../../../util/clock.js';
import type { Logger } from '../../../util/logger.js';
import { createCsrDriver, type CsrDriver } from '../csr/csr-driver.js';
import { GRPC_CONFIG_KEY, renderHubGrpcConfig } from './hub-config-template.js';
import { GrpcHubConfigError, hubConfigSource } from './hub-connection.js';

export interface GrpcFiles {
  /** `--grpc-bootstrap-config` ('' when not given). */
  bootstrapConfigFile: string;
  /** `--grpc-config` ('' when not given). */
  configFile: string;
}

export interface GrpcRegistrationOptions {
  files: GrpcFiles;
  clusterName: string;
  agentName: string;
  hubKubeconfigDir: string;
  expirationSeconds: number;
  log: Logger;
  clock: Clock;
  random: () => number;
}

export interface GrpcRegistration {
  driver: CsrDriver;
  /** `config.yaml` for the hub kubeconfig secret. */
  additionalData: Record<string, Buffer>;
  /** The gRPC server's address (host:port), for the hub's identity when no bootstrap kubeconfig is given. */
  url: string;
}

/**
 * The config the secret's `config.yaml` is derived from: the bootstrap config when there is one, so
 * that a changed bootstrap config reaches the saved config; else the hub config itself.
 */
function templateSourceFile(files: GrpcFiles): { path: string; what: string } {
  if (files.bootstrapConfigFile !== '') return { path: files.bootstrapConfigFile, what: 'hub bootstrap registration config' };
  if (files.configFile !== '') return { path: files.configFile, what: 'hub registration config' };
  throw new GrpcHubConfigError('config file should be set');
}

export function createGrpcRegistration(o: GrpcRegistrationOptions): GrpcRegistration {
  const source = templateSourceFile(o.files);
  const template = hubConfigSource(source.path, source.what);
  const driver = createCsrDriver({
    clusterName: o.clusterName,
    agentName: o.agentName,
    expirationSeconds: o.expirationSeconds,
    signerName: names.grpcSigner,
    log: o.log,
    clock: o.clock,
    random: o.random,
  });
  return { driver, additionalData: { [GRPC_CONFIG_KEY]: renderHubGrpcConfig(template, o.hubKubeconfigDir) }, url: template.url };
}
