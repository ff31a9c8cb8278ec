// In-cluster configuration (a pod's service account), as client-go's rest.InClusterConfig.
import { readFileSync } from 'node:fs';
import type { ClientConfig } from './kubeconfig.js';

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export function isInCluster(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.KUBERNETES_SERVICE_HOST && env.KUBERNETES_SERVICE_PORT);
}

export function inClusterConfig(env: NodeJS.ProcessEnv = process.env): ClientConfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  const token = readFileSync(`${SERVICE_ACCOUNT_DIR}/token`, 'utf8').trim();
  const caPem = readFileSync(`${SERVICE_ACCOUNT_DIR}/ca.crt`, 'utf8');
  const h = host.includes(':') ? `[${host}]` : host;
  return { server: `https://${h}:${port}`, token, caPem, contextName: 'in-cluster' };
}

/** The service account namespace file, read verbatim, when present. */
export function serviceAccountNamespace(): string | undefined {
  try {
    return readFileSync(`${SERVICE_ACCOUNT_DIR}/namespace`, 'utf8');
  } catch {
    return undefined;
  }
}
