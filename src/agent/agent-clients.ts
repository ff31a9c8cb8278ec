// Client construction for the agent's four kubeconfigs (spoke-agent.md §4): management
// (`--kubeconfig`, or the in-cluster service account when empty), spoke (`--spoke-kubeconfig`, or the
// management config), bootstrap and hub (built from file paths, so rotated files are re-read).

import { createKubeClient } from '../client/rest-client.js';
import { loadKubeconfigFile, type ClientConfig } from '../client/kubeconfig.js';
import { inClusterConfig } from '../client/in-cluster.js';
import type { KubeClient } from '../client/types.js';
import type { Logger } from '../util/logger.js';

export { inClusterConfig, serviceAccountNamespace } from '../client/in-cluster.js';

export interface AgentClients {
  management: KubeClient;
  spoke: KubeClient;
  /** CA bundle of the spoke config (PEM), when it has one. */
  spokeCaPem: string | undefined;
}

export function buildAgentClients(o: { kubeconfig: string; spokeKubeconfig: string; log: Logger; userAgent: string }): AgentClients {
  const clientOpts = { log: o.log, userAgent: o.userAgent };
  let managementConfig: ClientConfig;
  if (o.kubeconfig !== '') {
    try {
      managementConfig = loadKubeconfigFile(o.kubeconfig).config;
    } catch (err) {
      throw new Error(`unable to load management kubeconfig from file ${JSON.stringify(o.kubeconfig)}: ${(err as Error).message}`, { cause: err });
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
    throw new Error(`unable to load spoke kubeconfig from file ${JSON.stringify(o.spokeKubeconfig)}: ${(err as Error).message}`, { cause: err });
  }
  return { management, spoke: createKubeClient({ kubeconfigPath: o.spokeKubeconfig }, clientOpts), spokeCaPem: spokeConfig.caPem };
}

/** Spoke CA bundle for the creating controller: only when external server URLs are set (§5 step 5). */
export function spokeClusterCaBundle(externalUrls: readonly string[], caPem: string | undefined): Buffer | undefined {
  if (externalUrls.length === 0) return undefined;
  if (caPem === undefined) throw new Error('open : no such file or directory');
  return Buffer.from(caPem, 'utf8');
}
