import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_CN, AGENT_ORGS, testCa, testClientCert } from './csr/cert-fixtures.js';
import { buildHubKubeconfig } from './hub-kubeconfig.js';
import { createHubKubeconfigValidity, isHubKubeconfigValid, type SecretOption } from './hub-kubeconfig-validity.js';
import { currentClusterOf, loadCurrentCluster } from './raw-kubeconfig.js';

const H = 3_600_000;

function kubeconfig(o: { cluster?: string; server?: string; proxy?: string; caData?: string; ca?: string }): string {
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${o.cluster ?? 'hub'}`,
    '  cluster:',
    `    server: ${o.server ?? 'https://hub.example:6443'}`,
    ...(o.proxy ? [`    proxy-url: ${o.proxy}`] : []),
    ...(o.caData ? [`    certificate-authority-data: ${o.caData}`] : []),
    ...(o.ca ? [`    certificate-authority: ${o.ca}`] : []),
    'contexts:',
    '- name: ctx',
    '  context:',
    `    cluster: ${o.cluster ?? 'hub'}`,
    '    user: u',
    'current-context: ctx',
    'users:',
    '- name: u',
    '  user:',
    '    token: abc',
  ];
  return lines.join('\n') + '\n';
}

test('should build the hub kubeconfig from the bootstrap one (TestBuildKubeconfig)', () => {
  const withProxy = currentClusterOf(kubeconfig({ proxy: 'https://proxy:3128', caData: 'Y2E=', ca: 'ca.crt' }));
  const text = buildHubKubeconfig(withProxy).toString();
  const parsed = currentClusterOf(text);
  assert.deepEqual(parsed, { name: 'hub', server: 'https://hub.example:6443', certificateAuthority: 'ca.crt', certificateAuthorityData: 'Y2E=', proxyUrl: 'https://proxy:3128' });
  assert.match(text, /client-certificate: tls.crt/);
  assert.match(text, /client-key: tls.key/);
  assert.match(text, /current-context: default-context/);
  assert.equal(buildHubKubeconfig(withProxy).toString(), text, 'deterministic');
  const noProxy = buildHubKubeconfig(currentClusterOf(kubeconfig({}))).toString();
  assert.doesNotMatch(noProxy, /proxy-url/);
});

test('should report missing contexts and clusters with OCM messages', () => {
  assert.throws(() => currentClusterOf('current-context: x\ncontexts: []\n'), { message: 'kubeconfig does not contains context: x' });
  assert.throws(() => currentClusterOf('current-context: x\ncontexts:\n- name: x\n  context:\n    cluster: c\n'), { message: 'kubeconfig does not contains cluster: c' });
});

test('should tell a valid hub kubeconfig from an invalid one (TestIsHubKubeConfigValidFunc)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-ts-validity-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ca = await testCa();
  const now = Date.now();
  const good = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, notBefore: new Date(now - H), notAfter: new Date(now + H) });
  const other = await testClientCert(ca, { commonName: 'system:open-cluster-management:cluster2:agent2', organizations: AGENT_ORGS, notBefore: new Date(now - H), notAfter: new Date(now + H) });
  const expired = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, notBefore: new Date(now - 2 * H), notAfter: new Date(now - H) });
  const base = { proxy: 'https://proxy:3128', caData: 'Y2E=' };
  const bootstrapFile = join(dir, 'bootstrap');
  writeFileSync(bootstrapFile, kubeconfig(base));
  const cases: { name: string; hub?: string; cert?: string; key?: boolean; expected: boolean }[] = [
    { name: 'no kubeconfig', cert: good.certPem, expected: false },
    { name: 'no tls key', hub: buildHubKubeconfig(loadCurrentCluster(bootstrapFile)).toString(), cert: good.certPem, key: false, expected: false },
    { name: 'no tls cert', hub: buildHubKubeconfig(loadCurrentCluster(bootstrapFile)).toString(), expected: false },
    { name: 'cert is not issued for cluster1:agent1', hub: buildHubKubeconfig(loadCurrentCluster(bootstrapFile)).toString(), cert: other.certPem, expected: false },
    { name: 'expired cert', hub: buildHubKubeconfig(loadCurrentCluster(bootstrapFile)).toString(), cert: expired.certPem, expected: false },
    { name: 'context cluster changes', hub: kubeconfig({ ...base, cluster: 'hub2' }), cert: good.certPem, expected: false },
    { name: 'hub server url changes', hub: kubeconfig({ ...base, server: 'https://other:6443' }), cert: good.certPem, expected: false },
    { name: 'proxy url changes', hub: kubeconfig({ ...base, proxy: 'https://proxy2:3128' }), cert: good.certPem, expected: false },
    { name: 'ca bundle changes', hub: kubeconfig({ ...base, caData: 'Y2Ey' }), cert: good.certPem, expected: false },
    { name: 'ca changes', hub: kubeconfig({ ...base, ca: '/other/ca.crt' }), cert: good.certPem, expected: false },
    { name: 'valid hub client config', hub: buildHubKubeconfig(loadCurrentCluster(bootstrapFile)).toString(), cert: good.certPem, expected: true },
  ];
  for (const [i, c] of cases.entries()) {
    const hubDir = join(dir, `case${i}`);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(hubDir);
    if (c.hub !== undefined) writeFileSync(join(hubDir, 'kubeconfig'), c.hub);
    if (c.cert !== undefined) writeFileSync(join(hubDir, 'tls.crt'), c.cert);
    if (c.key !== false) writeFileSync(join(hubDir, 'tls.key'), good.keyPem);
    const opt: SecretOption = {
      secretNamespace: 'ns',
      secretName: 'hub-kubeconfig-secret',
      clusterName: 'cluster1',
      agentName: 'agent1',
      hubKubeconfigFile: join(hubDir, 'kubeconfig'),
      hubKubeconfigDir: hubDir,
      bootstrapKubeconfigFile: bootstrapFile,
    };
    assert.equal(isHubKubeconfigValid(opt, new Date()), c.expected, c.name);
  }
  // A corrupted hub kubeconfig is an error, not "invalid".
  const broken = join(dir, 'broken');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(broken);
  writeFileSync(join(broken, 'kubeconfig'), 'current-context: nope\n');
  assert.throws(
    () => isHubKubeconfigValid({ secretNamespace: 'ns', secretName: 's', clusterName: 'cluster1', agentName: 'agent1', hubKubeconfigFile: join(broken, 'kubeconfig'), hubKubeconfigDir: broken, bootstrapKubeconfigFile: bootstrapFile }, new Date()),
    /kubeconfig does not contains context: nope/,
  );
});

test('should notice replaced files and expiry when re-checking with a cached checker', async (t) => {
  const { mkdirSync } = await import('node:fs');
  const dir = mkdtempSync(join(tmpdir(), 'ocm-ts-validity-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ca = await testCa();
  const now = Date.now();
  const good = await testClientCert(ca, { commonName: AGENT_CN, organizations: AGENT_ORGS, notBefore: new Date(now - H), notAfter: new Date(now + H) });
  const other = await testClientCert(ca, { commonName: 'system:open-cluster-management:cluster2:agent2', organizations: AGENT_ORGS, notBefore: new Date(now - H), notAfter: new Date(now + H) });
  const bootstrapFile = join(dir, 'bootstrap');
  writeFileSync(bootstrapFile, kubeconfig({ caData: 'Y2E=' }));
  const hubDir = join(dir, 'hub');
  mkdirSync(hubDir);
  writeFileSync(join(hubDir, 'kubeconfig'), buildHubKubeconfig(loadCurrentCluster(bootstrapFile)));
  writeFileSync(join(hubDir, 'tls.crt'), good.certPem);
  writeFileSync(join(hubDir, 'tls.key'), good.keyPem);
  const valid = createHubKubeconfigValidity({
    secretNamespace: 'ns',
    secretName: 's',
    clusterName: 'cluster1',
    agentName: 'agent1',
    hubKubeconfigFile: join(hubDir, 'kubeconfig'),
    hubKubeconfigDir: hubDir,
    bootstrapKubeconfigFile: bootstrapFile,
  });
  assert.equal(valid(new Date(now)), true);
  assert.equal(valid(new Date(now)), true, 'unchanged files');
  assert.equal(valid(new Date(now + 2 * H)), false, 'expiry is re-evaluated without file changes');
  writeFileSync(join(hubDir, 'tls.crt'), other.certPem);
  assert.equal(valid(new Date(now)), false, 'certificate replaced by one for another agent');
  writeFileSync(join(hubDir, 'tls.crt'), good.certPem);
  assert.equal(valid(new Date(now)), true);
  writeFileSync(bootstrapFile, kubeconfig({ caData: 'Y2E=', server: 'https://other:6443' }));
  assert.equal(valid(new Date(now)), false, 'bootstrap kubeconfig points at another hub');
  writeFileSync(bootstrapFile, 'current-context: nope\n');
  assert.throws(() => valid(new Date(now)), /kubeconfig does not contains context: nope/);
  rmSync(join(hubDir, 'tls.key'));
  writeFileSync(bootstrapFile, kubeconfig({ caData: 'Y2E=' }));
  assert.equal(valid(new Date(now)), false, 'key removed');
});
