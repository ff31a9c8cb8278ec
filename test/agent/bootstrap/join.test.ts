// Scenario #1 of spoke-agent.md §5.1: bootstrap → CSR approved and issued → secret saved and dumped
// → main phase; then acceptance makes the status controller report Joined, and /healthz, /metrics.

import { request as httpsRequest } from 'node:https';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { parseCertificate } from '../../../src/util/x509.js';
import { waitFor } from '../../helpers/wait-for.js';
import { createAcceptedCluster, createClusterLease } from '../controllers/clusters.js';
import { startAgentEnv } from './fixture.js';

test('should join after approval and acceptance, with two servers', async (t) => {
  const env = await startAgentEnv(t);
  env.decideCsrs();
  const agent = await env.startAgent({ listen: '127.0.0.1:0', serving: { tls: { minVersion: 'TLSv1.2' }, certDir: '', metricsAuth: 'none' }, spokeExternalServerUrls: ['https://spoke.example:6443'], clusterAnnotations: { 'agent.open-cluster-management.io/a': 'b', 'other/x': 'y' } });

  // C creates the ManagedCluster with the bootstrap credentials.
  const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  const mc = await waitFor(() => clusters.get('cluster1'), 10_000, { message: 'ManagedCluster created' });
  assert.equal(mc.spec?.hubAcceptsClient, false);
  assert.deepEqual(mc.metadata.annotations, { 'agent.open-cluster-management.io/a': 'b' });
  assert.equal(mc.spec?.managedClusterClientConfigs?.[0]?.url, 'https://spoke.example:6443');

  // D creates a CSR; the approved certificate lands in the secret and the files.
  await waitFor(() => agent.status().phase === 'main', 15_000, { message: 'main phase' });
  const csrs = await env.csrs('cluster1');
  assert.equal(csrs.length, 1);
  const csr = csrs[0]!;
  assert.match(csr.metadata.name ?? '', /^cluster1-/);
  assert.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client');
  assert.deepEqual(csr.spec.usages, ['digital signature', 'key encipherment', 'client auth']);
  assert.equal(csr.spec.expirationSeconds, undefined);

  const secret = await env.hubSecret();
  assert.ok(secret?.data);
  assert.deepEqual(Object.keys(secret.data).sort(), ['agent-name', 'cluster-name', 'kubeconfig', 'tls.crt', 'tls.key']);
  assert.equal(Buffer.from(secret.data['cluster-name']!, 'base64').toString(), 'cluster1');
  assert.equal(Buffer.from(secret.data['agent-name']!, 'base64').toString(), 'agent1');
  const cert = parseCertificate(Buffer.from(secret.data['tls.crt']!, 'base64').toString());
  assert.equal(cert.commonName, 'system:open-cluster-management:cluster1:agent1');
  assert.deepEqual([...cert.organizations].sort(), ['system:open-cluster-management:cluster1', 'system:open-cluster-management:managed-clusters']);
  assert.match(Buffer.from(secret.data['tls.key']!, 'base64').toString(), /BEGIN EC PRIVATE KEY/);
  const kubeconfig = Buffer.from(secret.data['kubeconfig']!, 'base64').toString();
  assert.match(kubeconfig, /client-certificate: tls.crt/);
  assert.match(kubeconfig, /current-context: default-context/);
  assert.match(kubeconfig, /namespace: configuration/);

  const keyFile = join(env.hubKubeconfigDir, 'tls.key');
  assert.equal((await stat(keyFile)).mode & 0o777, 0o600);
  assert.equal(await readFile(join(env.hubKubeconfigDir, 'kubeconfig'), 'utf8'), kubeconfig);

  // Acceptance (the hub's part): Joined is reported with the agent's own credentials.
  await createClusterLease(env.hubAdmin, 'cluster1');
  await createAcceptedCluster(env.hubAdmin, 'cluster1');
  await waitFor(async () => (await clusters.get('cluster1')).status?.conditions?.some((c) => c.type === 'ManagedClusterJoined' && c.status === 'True'), 10_000, { message: 'Joined' });

  // Health and metrics.
  // Over HTTPS with the certificate made at start; the spoke admin's token-less client certificate
  // cannot pass the delegated check, so this agent serves /metrics without it (metricsAuth: none).
  assert.match(agent.healthUrl, /^https:/);
  const get = (path: string): Promise<{ status: number; body: string }> =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(`${agent.healthUrl}${path}`, { ca: agent.healthCaPem, agent: false }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  const health = await get('/healthz');
  assert.equal(health.status, 200);
  const metrics = (await get('/metrics')).body;
  assert.match(metrics, /ocm_agent_phase\{phase="main"\} 1/);
  assert.equal((await env.csrs('cluster1')).length, 1, 'no second CSR');
  await agent.stop();
});
