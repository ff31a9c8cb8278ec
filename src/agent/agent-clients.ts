// Clients of the two clusters the agent works in: management (`--kubeconfig`, or the in-cluster
// service account when empty), where its secrets live, and spoke (`--spoke-kubeconfig`, or the
// management config), whose status it reports. The hub clients (bootstrap, then hub kubeconfig) are
// built by the phases that use them, from file paths, so that rotated files are read again.

import { createKubeClient } from '../client/rest-client.js';
import { loadKubeconfigFile, type ClientConfig } from '../client/kubeconfig.js';
import { inClusterConfig } from '../client/in-cluster.js';
import type { KubeClient } from '../client/types.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';

export { serviceAccountNamespace } from '../client/in-cluster.js';

export interface AgentClients {
  management: KubeClient;
  spoke: KubeClient;
  /** CA bundle of the spoke config (PEM), when it has one. */
  spokeCaPem: string | undefined;
}

export function buildAgentClients(o: { kubeconfig: string; spokeKubeconfig: string; log: Logger; userAgent: string; rateLimit?: { qps: number; burst: number } }): AgentClients {
  const clientOpts = { log: o.log, userAgent: o.userAgent, ...(o.rateLimit ? { rateLimit: o.rateLimit } : {}) };
  let managementConfig: ClientConfig;
  if (o.kubeconfig !== '') {
    try {
      managementConfig = loadKubeconfigFile(o.kubeconfig).config;
    } catch (err) {
      throw new Error(`unable to load management kubeconfig from file ${JSON.stringify(o.kubeconfig)}: ${errorMessage(err)}`, { cause: err });
    }
  } else {
    managementConfig = inClusterConfig();
  }
  const management = o.kubeconfig !== '' ? createKubeClient({ kubeconfigPath: o.kubeconfig }, clientOpts) : createKubeClient(managementConfig, clientOpts);
  if (o.spokeKubeconfig === '') return { management, spoke: management, spokeCaPem: managementConfig.caPem };
  let spokeConfig: ClientConfig;
  try {
    spokeConfig = loadKubeconfigFile(o.spokeKubeconfig).config;
  } catch (err) {
    management.close();
    throw new Error(`unable to load spoke kubeconfig from file ${JSON.stringify(o.spokeKubeconfig)}: ${errorMessage(err)}`, { cause: err });
  }
  return { management, spoke: createKubeClient({ kubeconfigPath: o.spokeKubeconfig }, clientOpts), spokeCaPem: spokeConfig.caPem };
}

/**
 * The spoke's CA for the ManagedCluster's client configs, only when external server URLs are set.
 * A spoke config without a CA fails the start with the error OCM's agent gets from reading the
 * empty CA file path.
 */
export function spokeClusterCaBundle(externalUrls: readonly string[], caPem: string | undefined): Buffer | undefined {
  if (externalUrls.length === 0) return undefined;
  if (caPem === undefined) throw new Error('open : no such file or directory');
  return Buffer.from(caPem, 'utf8');
}
