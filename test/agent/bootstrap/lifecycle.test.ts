// Start-sequence behaviours across restarts (spoke-agent.md §5.1, §5.2, §7): a restarted agent keeps
// its identity and skips bootstrap; an expired hub certificate leads to a new CSR; a changed
// bootstrap kubeconfig secret re-runs the start sequence and re-bootstraps; a denied CSR never
// yields a credential.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Secret } from '../../../src/api/core.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { buildHubKubeconfig } from '../../../src/agent/register/hub-kubeconfig.js';
import { loadCurrentCluster } from '../../../src/agent/register/raw-kubeconfig.js';
import { generateKeyPair, issueCertificate, parseCertificate, toEcPrivateKeyPem } from '../../../src/util/x509.js';
import { createPublicKey } from 'node:crypto';
import { parseYaml, toYaml } from '../../../src/util/yaml.js';
import { captureLog } from '../../helpers/test-log.js';
import { waitFor } from '../../helpers/wait-for.js';
import { AGENT_NS, startAgentEnv } from './fixture.js';

const b64 = (s: string | Buffer): string => Buffer.from(s).toString('base64');
const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString();

test('should keep its identity across a restart and not bootstrap again', async (t) => {
  const env = await startAgentEnv(t);
  env.decideCsrs();
  // No names given: a UUID cluster name and a generated agent ID, persisted through the secret.
  const first = await env.startAgent({ clusterName: 'cluster1', agentId: '' });
  await waitFor(() => first.status().phase === 'main', 15_000, { message: 'main phase' });
  const agentId = first.status().agentId!;
  assert.match(agentId, /^[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  await first.stop();
  // The hub kubeconfig dir is an emptyDir: it is gone after a restart.
  await rm(env.hubKubeconfigDir, { recursive: true, force: true });

  const second = await env.startAgent({ clusterName: '', agentId: '' });
  await waitFor(() => second.status().phase === 'main', 15_000, { message: 'main phase after restart' });
  assert.equal(second.status().bootstraps, 0, 'no bootstrap after restart');
  assert.equal(second.status().clusterName, 'cluster1');
  assert.equal(second.status().agentId, agentId);
  assert.equal((await env.csrs('cluster1')).length, 1, 'no new CSR');
});

test('should create a new CSR when the stored hub certificate has expired', async (t) => {
  const env = await startAgentEnv(t);
  // A secret as a previous run would have left it, but with a certificate that expired an hour ago.
  const key = toEcPrivateKeyPem((await generateKeyPair('ecdsa-p256')).privateKeyPem);
  const publicKey = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  const now = Date.now();
  const expired = await issueCertificate({
    ca: env.hub.server.pki.signingCa,
    subject: { commonName: 'system:open-cluster-management:cluster1:agent1', organizations: ['system:open-cluster-management:cluster1', 'system:open-cluster-management:managed-clusters'] },
    publicKey,
    notBefore: new Date(now - 2 * 3_600_000),
    notAfter: new Date(now - 3_600_000),
    keyUsages: ['digitalSignature', 'keyEncipherment'],
    extKeyUsages: ['clientAuth'],
  });
  const kubeconfig = buildHubKubeconfig(loadCurrentCluster(env.bootstrapKubeconfigPath));
  await env.spokeAdmin.resource<Secret>(resourceTypes.secrets, AGENT_NS).create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'hub-kubeconfig-secret', namespace: AGENT_NS },
    data: { kubeconfig: b64(kubeconfig), 'tls.crt': b64(expired), 'tls.key': b64(key), 'cluster-name': b64('cluster1'), 'agent-name': b64('agent1') },
  });
  env.decideCsrs();
  const agent = await env.startAgent();
  await waitFor(() => agent.status().phase === 'main', 15_000, { message: 'main phase' });
  assert.equal(agent.status().bootstraps, 1);
  assert.equal((await env.csrs('cluster1')).length, 1);
  const cert = parseCertificate(unb64((await env.hubSecret())?.data?.['tls.crt']));
  assert.ok(cert.notAfter.getTime() > Date.now(), 'fresh certificate stored');
  assert.equal(await readFile(join(env.hubKubeconfigDir, 'tls.crt'), 'utf8'), unb64((await env.hubSecret())?.data?.['tls.crt']));
});

test('should re-run the start sequence and re-bootstrap when the bootstrap kubeconfig secret changes', async (t) => {
  const env = await startAgentEnv(t);
  env.decideCsrs();
  const agent = await env.startAgent();
  await waitFor(() => agent.status().phase === 'main', 15_000, { message: 'main phase' });
  assert.equal(agent.status().runs, 1);

  // The operator points the bootstrap kubeconfig at a "rebuilt" hub: same URL and CA, other cluster entry name.
  const rebuilt = rewriteClusterName(await readFile(env.bootstrapKubeconfigPath, 'utf8'));
  await writeFile(env.bootstrapKubeconfigPath, rebuilt);
  const secrets = env.spokeAdmin.resource<Secret>(resourceTypes.secrets, AGENT_NS);
  const s = await secrets.get('bootstrap-hub-kubeconfig');
  s.data = { kubeconfig: b64(rebuilt) };
  await secrets.update(s);

  await waitFor(() => agent.status().runs >= 2 && agent.status().phase === 'main', 15_000, { message: 'restarted into main phase' });
  assert.equal(agent.status().bootstraps, 2, 'bootstrapped again');
  assert.equal((await env.csrs('cluster1')).length, 2, 'a new CSR');
  assert.match(unb64((await env.hubSecret())?.data?.['kubeconfig']), /cluster: rebuilt-hub/);
});

/** Renames the current context's cluster entry (same server and CA). */
function rewriteClusterName(text: string): string {
  const doc = parseYaml(text) as { 'current-context': string; contexts: { name: string; context: { cluster: string } }[]; clusters: { name: string }[] };
  const ctx = doc.contexts.find((c) => c.name === doc['current-context'])!;
  const old = ctx.context.cluster;
  for (const c of doc.clusters) if (c.name === old) c.name = 'rebuilt-hub';
  for (const c of doc.contexts) if (c.context.cluster === old) c.context.cluster = 'rebuilt-hub';
  return toYaml(doc);
}

test('should never store a credential for a denied CSR', async (t) => {
  const env = await startAgentEnv(t);
  env.decideCsrs('Denied');
  const logs = captureLog();
  const agent = await env.startAgent({}, logs.log);
  await waitFor(async () => (await env.csrs('cluster1')).some((c) => c.status?.conditions?.some((x) => x.type === 'Denied')), 15_000, { message: 'CSR denied' });
  // Three more runs of the bootstrap registration (resynced every 200 ms) after the denial: still
  // bootstrapping, no secret, no second CSR.
  const runs = (): number => logs.reconciles('BootstrapController@cluster:cluster1');
  const target = runs() + 3;
  await waitFor(() => runs() >= target, 10_000, { message: 'three bootstrap registration runs' });
  assert.equal(agent.status().phase, 'bootstrap');
  assert.equal(await env.hubSecret(), undefined);
  assert.equal((await env.csrs('cluster1')).length, 1);
});
