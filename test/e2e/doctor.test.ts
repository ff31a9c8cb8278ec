// `ocm-ts doctor` (the built command) against an embedded hub, embedded spokes and in-process
// agents: a healthy cluster passes every link (exit 0); then each link is broken on purpose and
// doctor names it as the first broken one, with its fix (exit 1): no ManagedCluster, a pending and a
// denied CSR, hubAcceptsClient=false, an expired and a deleted bootstrap token, a bootstrap
// kubeconfig with another CA, a stopped agent (stale lease), a hub kubeconfig secret with another
// CA, and the hub kubeconfig secret deleted.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseYaml, toYaml } from '../../src/util/yaml.js';
import type { CertificateSigningRequest, Lease, Secret } from '../../src/api/core.js';
import { defaultAgentOptions } from '../../src/agent/options/agent-options.js';
import { startSpokeAgent, type SpokeAgentHandle } from '../../src/agent/spoke-agent.js';
import { startEmbeddedApiServer, type EmbeddedApiServer } from '../../src/apiserver/embedded.js';
import { createKubeClient } from '../../src/client/rest-client.js';
import { resourceTypes } from '../../src/client/resource-types.js';
import type { KubeClient } from '../../src/client/types.js';
import { acceptCluster } from '../../src/cli/accept.js';
import { prepareSpokeForJoin } from '../../src/cli/join.js';
import type { DoctorReport } from '../../src/doctor/report.js';
import { realClock } from '../../src/util/clock.js';
import { nullLogger } from '../../src/util/logger.js';
import { createSelfSignedCa } from '../../src/util/x509.js';
import { startEmbeddedHubFixture, type EmbeddedHubFixture } from '../hub/embedded-hub-fixture.js';
import { waitFor } from '../helpers/wait-for.js';
import { cleanupAll, runCliToEnd, tempDir } from './cli-helpers.js';

const AGENT_NS = 'open-cluster-management-agent';
const MC = resourceTypes.managedClusters;

interface Spoke {
  name: string;
  server: EmbeddedApiServer;
  client: KubeClient;
  agent: SpokeAgentHandle;
}

let dir = '';
let hubFx: EmbeddedHubFixture;
let admin: KubeClient;
const spokes: Spoke[] = [];
const signal = new AbortController().signal;

after(async () => {
  for (const s of spokes) {
    await s.agent.stop();
    s.client.close();
    await s.server.close();
  }
  admin?.close();
  await hubFx?.stop();
  await cleanupAll();
});

async function startSpoke(name: string): Promise<Spoke> {
  const server = await startEmbeddedApiServer({ dataDir: join(dir, name), listen: { host: '127.0.0.1', port: 0 }, log: nullLogger(), clock: realClock });
  const client = createKubeClient({ kubeconfigPath: server.adminKubeconfigPath });
  // What `ocm-ts join` does before it starts the agent.
  await prepareSpokeForJoin(client, { bootstrapKubeconfig: await readFile(hubFx.hub.bootstrapKubeconfigPath, 'utf8'), clock: realClock, signal, say: () => undefined });
  const d = defaultAgentOptions();
  const agent = await startSpokeAgent({
    options: {
      ...d,
      kubeconfig: server.adminKubeconfigPath,
      clusterName: name,
      bootstrapKubeconfig: hubFx.hub.bootstrapKubeconfigPath,
      hubKubeconfigDir: join(dir, `${name}-hub-kubeconfig`),
      listen: '127.0.0.1:0',
      serving: { ...d.serving, metricsAuth: 'none' },
      clusterHealthcheckPeriodMs: 1000,
      timings: { ...d.timings, bootstrapPollMs: 100 },
    },
    log: nullLogger(),
    defaultMetrics: false,
  });
  const s = { name, server, client, agent };
  spokes.push(s);
  return s;
}

async function doctor(cluster: string, ...extra: string[]): Promise<{ code: number | null; report: DoctorReport; describe: string }> {
  const r = await runCliToEnd(['doctor', cluster, '--kubeconfig', hubFx.hub.adminKubeconfigPath, '-o', 'json', ...extra]);
  let report: DoctorReport;
  try {
    report = JSON.parse(r.stdout) as DoctorReport;
  } catch {
    assert.fail(`doctor printed no JSON: ${r.describe}`);
  }
  return { code: r.code, report, describe: r.describe + '\n' + JSON.stringify(report.checks.map((c) => [c.id, c.status, c.detail])) };
}

/** Doctor exits 1 and names `id` as the first broken link, its problem and fix matching. */
async function expectBroken(cluster: string, extra: string[], id: string, problem: RegExp, fix: RegExp): Promise<void> {
  const { code, report, describe } = await doctor(cluster, ...extra);
  assert.equal(code, 1, describe);
  assert.equal(report.healthy, false, describe);
  assert.equal(report.firstFailure, id, describe);
  const c = report.checks.find((x) => x.id === id)!;
  assert.equal(c.status, 'fail', describe);
  assert.match(c.problem ?? '', problem, describe);
  assert.match(c.fix ?? '', fix, describe);
  // Every link before the broken one holds.
  for (const before of report.checks.slice(0, report.checks.indexOf(c))) assert.ok(before.status === 'ok' || before.status === 'skip', `${before.id} before ${id}: ${describe}`);
}

let c1: Spoke;

before(async () => {
  dir = await tempDir('doctor');
  hubFx = await startEmbeddedHubFixture('ocm-ts-e2e-doctor-hub-');
  admin = createKubeClient({ kubeconfigPath: hubFx.hub.adminKubeconfigPath });
  c1 = await startSpoke('c1');
  await acceptCluster({ client: admin, clock: realClock, signal, wait: true, timeoutMs: 60_000, say: () => undefined }, 'c1');
  await waitFor(async () => (await admin.resource(MC).get('c1')) && (await doctor('c1', '--spoke-kubeconfig', c1.server.adminKubeconfigPath)).code === 0, 30_000, { message: 'c1 healthy', intervalMs: 200 });
});

test('a healthy cluster: every link ✓, exit 0; the text report and -o json', async () => {
  const spoke = c1.server.adminKubeconfigPath;
  const { code, report, describe } = await doctor('c1', '--spoke-kubeconfig', spoke, '--agent-url', c1.agent.healthUrl);
  assert.equal(code, 0, describe);
  assert.equal(report.healthy, true);
  assert.deepEqual(report.checks.map((c) => c.id), ['hub', 'bootstrap-ca', 'bootstrap-token', 'cluster', 'csr', 'accepted', 'certificate', 'hub-secret', 'joined', 'lease', 'clock', 'agent-health']);
  assert.deepEqual(report.checks.filter((c) => c.status !== 'ok').map((c) => c.id), [], describe);

  const text = await runCliToEnd(['doctor', 'c1', '--kubeconfig', hubFx.hub.adminKubeconfigPath, '--spoke-kubeconfig', spoke]);
  assert.equal(text.code, 0, text.describe);
  assert.match(text.stdout, /^✓ hub reachable\s+https:\/\/127\.0\.0\.1:\d+/m);
  assert.match(text.stdout, /^✓ client certificate valid\s+.*expires in \d+d, rotation in about \d+d$/m);
  assert.match(text.stdout, /^- agent health endpoint\s+not checked: pass --agent-url$/m);
  assert.match(text.stdout, /^c1 is healthy$/m);
});

test('no ManagedCluster: the agent never registered', async () => {
  await expectBroken('ghost', [], 'cluster', /no ManagedCluster ghost/, /ocm-ts join --hub-kubeconfig bootstrap\.kubeconfig --cluster-name ghost/);
  const text = await runCliToEnd(['doctor', 'ghost', '--kubeconfig', hubFx.hub.adminKubeconfigPath]);
  assert.equal(text.code, 1, text.describe);
  assert.match(text.stdout, /^✗ ManagedCluster exists\s+no ManagedCluster ghost$/m);
  assert.match(text.stdout, /^  fix: ocm-ts hub token --kubeconfig .* --create > bootstrap\.kubeconfig && ocm-ts join /m);
});

test('a pending CSR, then a denied one', async () => {
  const c2 = await startSpoke('c2');
  const csrs = admin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  const csr = await waitFor(async () => (await csrs.list({ labelSelector: 'open-cluster-management.io/cluster-name=c2' })).items[0], 30_000, { message: 'CSR of c2', intervalMs: 100 });
  const spoke = ['--spoke-kubeconfig', c2.server.adminKubeconfigPath];
  await expectBroken('c2', spoke, 'csr', new RegExp(`CSR ${csr.metadata.name} of c2 waits for approval`), /^ocm-ts accept c2 --kubeconfig /);

  const now = new Date().toISOString();
  await csrs.updateSubresource({ ...csr, status: { conditions: [{ type: 'Denied', status: 'True', reason: 'AdminDenied', message: 'not this one', lastUpdateTime: now }] } }, 'approval');
  await expectBroken('c2', spoke, 'csr', /was denied \(not this one\)/, new RegExp(`delete csr ${csr.metadata.name} .*ocm-ts accept c2`));
});

test('hubAcceptsClient=false', async () => {
  await admin.resource(MC).patch('c1', 'merge', { spec: { hubAcceptsClient: false } });
  try {
    await expectBroken('c1', ['--spoke-kubeconfig', c1.server.adminKubeconfigPath], 'accepted', /c1 (was denied by the hub admin|has not been accepted)/, /^ocm-ts accept c1 --kubeconfig /);
  } finally {
    await admin.resource(MC).patch('c1', 'merge', { spec: { hubAcceptsClient: true } });
  }
});

test('the bootstrap token expired, then deleted', async () => {
  const bootstrap = parseYaml(await readFile(hubFx.hub.bootstrapKubeconfigPath, 'utf8')) as { users: { user: { token: string } }[] };
  const id = bootstrap.users[0]!.user.token.split('.')[0]!;
  const secrets = admin.resource<Secret>(resourceTypes.secrets, 'kube-system');
  const original = await secrets.get(`bootstrap-token-${id}`);
  const spoke = ['--spoke-kubeconfig', c1.server.adminKubeconfigPath];
  const fix = /ocm-ts hub token --kubeconfig \S+ --create > bootstrap\.kubeconfig && ocm-ts join --hub-kubeconfig bootstrap\.kubeconfig --cluster-name c1/;
  await secrets.patch(original.metadata.name!, 'merge', { data: { expiration: Buffer.from('2020-01-01T00:00:00Z').toString('base64') } });
  await expectBroken('c1', spoke, 'bootstrap-token', new RegExp(`bootstrap token ${id} in secret ${AGENT_NS}/bootstrap-hub-kubeconfig on the spoke expired at 2020-01-01`), fix);
  await secrets.delete(original.metadata.name!);
  try {
    await expectBroken('c1', spoke, 'bootstrap-token', new RegExp(`bootstrap token ${id} .* was deleted from the hub`), fix);
  } finally {
    await secrets.create({ ...original, metadata: { name: original.metadata.name!, namespace: 'kube-system', labels: original.metadata.labels ?? {} } });
  }
});

test('a bootstrap kubeconfig with another CA', async () => {
  const other = await createSelfSignedCa({ commonName: 'another-ca', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 24 * 3600_000) });
  const doc = parseYaml(await readFile(hubFx.hub.bootstrapKubeconfigPath, 'utf8')) as { clusters: { cluster: Record<string, string> }[] };
  doc.clusters[0]!.cluster['certificate-authority-data'] = Buffer.from(other.certPem).toString('base64');
  const wrong = join(dir, 'wrong-ca.kubeconfig');
  await writeFile(wrong, toYaml(doc), { mode: 0o600 });
  await expectBroken('c1', ['--bootstrap-kubeconfig', wrong], 'bootstrap-ca', /does not verify with the CA in .*wrong-ca\.kubeconfig/, /ocm-ts hub token .* ocm-ts join /);
});

test('the agent stopped: its lease goes stale; then the hub kubeconfig secret with another CA; then deleted', async () => {
  const spoke = ['--spoke-kubeconfig', c1.server.adminKubeconfigPath];
  // A 1 s lease: the grace (5 leases) runs out in 5 s.
  await admin.resource(MC).patch('c1', 'merge', { spec: { leaseDurationSeconds: 1 } });
  const leases = admin.resource<Lease>(resourceTypes.leases, 'c1');
  const renewedAt = Date.now();
  await waitFor(async () => Date.parse((await leases.get('managed-cluster-lease')).spec?.renewTime ?? '') >= renewedAt - 1000, 10_000, { message: 'lease renewed at the 1 s period', intervalMs: 100 });
  await c1.agent.stop();
  const lastRenew = Date.parse((await leases.get('managed-cluster-lease')).spec?.renewTime ?? '');
  await waitFor(() => Date.now() > lastRenew + 6500, 10_000, { message: 'grace elapsed', intervalMs: 100 });
  await expectBroken('c1', spoke, 'lease', /the agent of c1 stopped renewing its lease/, /start the agent again/);

  const secrets = c1.client.resource<Secret>(resourceTypes.secrets, AGENT_NS);
  const secret = await secrets.get('hub-kubeconfig-secret');
  const kubeconfig = parseYaml(Buffer.from(secret.data!['kubeconfig']!, 'base64').toString('utf8')) as { clusters: { cluster: Record<string, string> }[] };
  const other = await createSelfSignedCa({ commonName: 'another-ca', notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 24 * 3600_000) });
  delete kubeconfig.clusters[0]!.cluster['certificate-authority'];
  kubeconfig.clusters[0]!.cluster['certificate-authority-data'] = Buffer.from(other.certPem).toString('base64');
  await secrets.update({ ...secret, data: { ...secret.data, kubeconfig: Buffer.from(toYaml(kubeconfig)).toString('base64') } });
  await expectBroken('c1', spoke, 'hub-secret', /does not verify with the CA in open-cluster-management-agent\/hub-kubeconfig-secret/, /delete secret hub-kubeconfig-secret .*ocm-ts accept c1/);

  await secrets.delete('hub-kubeconfig-secret');
  await expectBroken('c1', spoke, 'hub-secret', /the spoke has no open-cluster-management-agent\/hub-kubeconfig-secret/, /ocm-ts join /);
});
