import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { parseYaml } from '../../util/yaml.js';
import { ensurePki, ensureAdminKubeconfig, writeKubeconfig } from './index.js';
import { parseCertificate, verifyCertificateChain } from '../../util/x509.js';

async function tmp(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'ocm-ts-pki-'));
}

test('should create a CA and serving certificate with loopback SANs and 0600 keys', async () => {
  const dir = await tmp();
  try {
    const pki = await ensurePki(dir, { extraSans: ['hub.example.com', '10.1.2.3'] });
    const srv = parseCertificate(pki.servingCertPem);
    assert.deepEqual(srv.dnsNames.sort(), ['hub.example.com', 'localhost']);
    assert.ok(srv.ipAddresses.includes('127.0.0.1'));
    assert.ok(srv.ipAddresses.includes('10.1.2.3'));
    assert.ok(srv.ipAddresses.some((ip) => ip === '::1' || ip === '0:0:0:0:0:0:0:1'));
    assert.ok(verifyCertificateChain(pki.servingCertPem, pki.caPem));
    for (const f of ['ca.key', 'apiserver.key']) {
      assert.equal((await stat(join(dir, f))).mode & 0o777, 0o600, f);
    }
    execFileSync('openssl', ['verify', '-CAfile', join(dir, 'ca.crt'), join(dir, 'apiserver.crt')]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('should keep the directory 0700 and every file 0600, tightening a loose existing directory', async () => {
  const dir = await tmp();
  const modes = async (): Promise<Record<string, string>> => {
    const out: Record<string, string> = { '.': ((await stat(dir)).mode & 0o777).toString(8) };
    for (const f of await readdir(dir)) out[f] = ((await stat(join(dir, f))).mode & 0o777).toString(8);
    return out;
  };
  const privateModes = { '.': '700', 'ca.crt': '600', 'ca.key': '600', 'apiserver.crt': '600', 'apiserver.key': '600', 'sa.key': '600' };
  const old = process.umask(0o022);
  try {
    await ensurePki(dir);
    assert.deepEqual(await modes(), privateModes);
    await chmod(dir, 0o755);
    for (const f of await readdir(dir)) await chmod(join(dir, f), 0o644);
    await writeFile(join(dir, 'ca.key.tmp-1'), 'left by a crash', { mode: 0o644 });
    await ensurePki(dir);
    assert.deepEqual(await modes(), { ...privateModes, 'ca.key.tmp-1': '600' });
  } finally {
    process.umask(old);
    await rm(dir, { recursive: true, force: true });
  }
});

test('should reuse the CA and serving certificate on a second call', async () => {
  const dir = await tmp();
  try {
    const a = await ensurePki(dir);
    const b = await ensurePki(dir);
    assert.equal(a.caPem, b.caPem);
    assert.equal(a.servingCertPem, b.servingCertPem);
    // A new SAN re-issues the serving certificate but keeps the CA.
    const c = await ensurePki(dir, { extraSans: ['new.example'] });
    assert.equal(c.caPem, a.caPem);
    assert.notEqual(c.servingCertPem, a.servingCertPem);
    assert.ok(parseCertificate(c.servingCertPem).dnsNames.includes('new.example'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('should issue client certificates with CN, O and clientAuth for both key algorithms', async () => {
  const dir = await tmp();
  try {
    const pki = await ensurePki(dir);
    for (const keyAlgorithm of ['ecdsa-p256', 'rsa-2048'] as const) {
      const issued = await pki.issueClientCertificate({ commonName: 'alice', organizations: ['g1', 'g2'], validityMs: 60_000, keyAlgorithm });
      const c = parseCertificate(issued.certPem);
      assert.equal(c.commonName, 'alice');
      assert.deepEqual(c.organizations, ['g1', 'g2']);
      assert.deepEqual(c.extKeyUsageOids, ['1.3.6.1.5.5.7.3.2']);
      assert.ok(c.notAfter.getTime() - Date.now() <= 60_000);
      assert.ok(verifyCertificateChain(issued.certPem, pki.clientCaPem));
      assert.match(issued.keyPem, /BEGIN PRIVATE KEY/);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('should write an admin kubeconfig in system:masters and rewrite only the server URL', async () => {
  const dir = await tmp();
  try {
    const pki = await ensurePki(join(dir, 'pki'));
    const path = await ensureAdminKubeconfig(dir, 'https://127.0.0.1:1111', pki);
    assert.equal(path, join(dir, 'admin.kubeconfig'));
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const doc1 = parseYaml(await readFile(path, 'utf8')) as {
      clusters: Array<{ cluster: { server: string; 'certificate-authority-data': string } }>;
      users: Array<{ user: { 'client-certificate-data': string } }>;
      'current-context': string;
    };
    assert.equal(doc1.clusters[0]!.cluster.server, 'https://127.0.0.1:1111');
    assert.equal(Buffer.from(doc1.clusters[0]!.cluster['certificate-authority-data'], 'base64').toString(), pki.caPem);
    const cert1 = Buffer.from(doc1.users[0]!.user['client-certificate-data'], 'base64').toString();
    const parsed = parseCertificate(cert1);
    assert.equal(parsed.commonName, 'ocm-ts:admin');
    assert.deepEqual(parsed.organizations, ['system:masters']);

    await ensureAdminKubeconfig(dir, 'https://127.0.0.1:2222', pki);
    const doc2 = parseYaml(await readFile(path, 'utf8')) as typeof doc1;
    assert.equal(doc2.clusters[0]!.cluster.server, 'https://127.0.0.1:2222');
    assert.equal(Buffer.from(doc2.users[0]!.user['client-certificate-data'], 'base64').toString(), cert1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('should write a token kubeconfig that client-node loads', async () => {
  const dir = await tmp();
  try {
    const { KubeConfig } = await import('@kubernetes/client-node');
    const path = join(dir, 'k.kubeconfig');
    await writeKubeconfig({ path, server: 'https://127.0.0.1:6443', caPem: 'CA', user: { token: 'abc.def' }, contextName: 'ctx' });
    assert.equal((await stat(path)).mode & 0o777, 0o600);
    const kc = new KubeConfig();
    kc.loadFromFile(path);
    assert.equal(kc.getCurrentContext(), 'ctx');
    assert.equal(kc.getCurrentUser()?.token, 'abc.def');
    assert.equal(kc.getCurrentCluster()?.server, 'https://127.0.0.1:6443');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
