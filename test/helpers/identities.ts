// Test identities: clients authenticated by client certificates issued from the embedded server's CA.

import { createKubeClient } from '../../src/client/index.js';
import type { KubeClient } from '../../src/client/types.js';
import type { TestApiServer } from './embedded-server.js';

export async function clientAs(server: TestApiServer, commonName: string, organizations: string[]): Promise<KubeClient> {
  const cert = await server.server.pki.issueClientCertificate({ commonName, organizations });
  return createKubeClient({ server: server.url, caPem: server.server.pki.caPem, certPem: cert.certPem, keyPem: cert.keyPem, contextName: commonName });
}

/** The user and groups of a registration agent's hub certificate. */
export const agentUser = (cluster: string, agent = 'agent1'): string => `system:open-cluster-management:${cluster}:${agent}`;
export const agentGroups = (cluster: string): string[] => [`system:open-cluster-management:${cluster}`, 'system:open-cluster-management:managed-clusters'];
