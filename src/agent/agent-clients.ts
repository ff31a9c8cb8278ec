// Client construction for the agent's four kubeconfigs (spoke-agent.md §4): management
// (`--kubeconfig`, or the in-cluster service account when empty), spoke (`--spoke-kubeconfig`, or the
// management config), bootstrap and hub (built from file paths, so rotated files are re-read).

import { readFileSync } from 'node:fs';
import { createKubeClient } from '../client/rest-client.js';
import { loadKubeconfigFile, type ClientConfig } from '../client/kubeconfig.js';
import type { KubeClient } from '../client/types.js';
import type { Logger } from '../util/logger.js';

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/** The in-cluster config (service account token + CA), as client-go's rest.InClusterConfig. */
export function inClusterConfig(env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  const token = readFileSync(`${SA_DIR}/token`, 'utf8').trim();
  const caPem = readFileSync(`${SA_DIR}/ca.crt`, 'utf8');
  const h = host.includes(':') ? `[${host}]` : host;
  return { server: `https://${h}:${port}`, token, caPem, contextName: 'in-cluster' };
}

/** The service account namespace file, read verbatim, when present. */
export function serviceAccountNamespace(): string | undefined {
  try {
    return readFileSync(`${SA_DIR}/namespace`, 'utf8');
  } catch {
    return undefined;
  }
}

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
