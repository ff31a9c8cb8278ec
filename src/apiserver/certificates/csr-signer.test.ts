import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { openSqliteStore } from '../storage/sqlite-store.js';
import { storageKey } from '../pipeline.js';
import { createLogger } from '../../util/logger.js';
import { ensurePki } from '../pki/index.js';
import { createCsr, generateKeyPair, parseCertificate, keyMatchesCertificate } from '../../util/x509.js';
import { createCsrSigner } from './csr-signer.js';
import type { KubeObject } from '../../api/meta.js';
import { waitFor } from '../../../test/helpers/wait-for.js';

const key = (name: string): string => storageKey('certificates.k8s.io', 'certificatesigningrequests', '', name);

test('should sign approved kube-apiserver-client CSRs (ECDSA and RSA) and fail bad usages', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-signer-'));
  const store = openSqliteStore({ path: ':memory:' });
  const lines: string[] = [];
  const ac = new AbortController();
  try {
    const pki = await ensurePki(join(dir, 'pki'));
    const signer = createCsrSigner({ store, pki, clusterSigningDurationMs: 20_000, log: createLogger({ level: 'debug', write: (l) => lines.push(l) }) });
    const keys: Record<string, string> = {};
    const mk = async (name: string, alg: 'ecdsa-p256' | 'rsa-2048', usages: string[], approved: boolean, expirationSeconds?: number): Promise<void> => {
      const k = await generateKeyPair(alg);
      keys[name] = k.privateKeyPem;
      const pem = await createCsr({ commonName: `system:open-cluster-management:c1:${name}`, organizations: ['system:open-cluster-management:c1', 'system:open-cluster-management:managed-clusters'], privateKeyPem: k.privateKeyPem });
      const obj: KubeObject = {
        apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name },
        spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages, username: 'u', groups: ['g'], ...(expirationSeconds ? { expirationSeconds } : {}) },
        status: approved ? { conditions: [{ type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'ok' }] } : {},
      };
      store.create(key(name), obj);
    };
    await mk('before-start', 'ecdsa-p256', ['digital signature', 'key encipherment', 'client auth'], true);
    signer.start(ac.signal);
    await mk('rsa', 'rsa-2048', ['client auth'], true, 3600);
    await mk('pending', 'ecdsa-p256', ['client auth'], false);
    await mk('badusage', 'ecdsa-p256', ['client auth', 'server auth'], true);

    for (const name of ['before-start', 'rsa']) {
      const cert = await waitFor(() => (store.get(key(name))?.object.status as { certificate?: string } | undefined)?.certificate);
      const pem = Buffer.from(cert, 'base64').toString('utf8');
      const c = parseCertificate(pem);
      assert.equal(c.commonName, `system:open-cluster-management:c1:${name}`);
      assert.deepEqual(c.organizations, ['system:open-cluster-management:c1', 'system:open-cluster-management:managed-clusters']);
      assert.deepEqual(c.extKeyUsageOids, ['1.3.6.1.5.5.7.3.2']);
      assert.equal(c.isCa, false);
      // lifetime: min(20 s cluster duration, expirationSeconds); backdate ≤ ttl/10
      assert.ok(c.notAfter.getTime() - c.notBefore.getTime() <= 23_000, `${c.notBefore.toISOString()} .. ${c.notAfter.toISOString()}`);
      assert.ok(keyMatchesCertificate(pem, keys[name]!));
      const f = join(dir, `${name}.crt`);
      await writeFile(f, pem);
      execFileSync('openssl', ['verify', '-CAfile', join(dir, 'pki', 'ca.crt'), f]);
      // conditions preserved
      const conds = (store.get(key(name))!.object.status as { conditions: Array<{ type: string }> }).conditions;
      assert.deepEqual(conds.map((x) => x.type), ['Approved']);
    }
    const failed = await waitFor(() => (store.get(key('badusage'))?.object.status as { conditions?: Array<{ type: string; reason: string; message: string }> }).conditions?.find((x) => x.type === 'Failed'));
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.equal(failed.message, 'invalid usage for client certificate: server auth');
    assert.equal((store.get(key('badusage'))!.object.status as { certificate?: string }).certificate, undefined);
    assert.equal((store.get(key('pending'))!.object.status as { certificate?: string }).certificate, undefined);

    // approving later gets it signed
    const cur = store.get(key('pending'))!;
    store.update(key('pending'), { ...cur.object, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'r', message: 'm' }] } }, cur.revision);
    await waitFor(() => (store.get(key('pending'))?.object.status as { certificate?: string }).certificate);
    assert.ok(!lines.join('\n').includes('PRIVATE KEY'));
  } finally {
    ac.abort();
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('should refuse approved CSRs for internal identities, system:masters or another identity than their OCM labels name, and sign alice', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-signer-'));
  const store = openSqliteStore({ path: ':memory:' });
  const ac = new AbortController();
  const P = 'system:open-cluster-management:';
  try {
    const pki = await ensurePki(join(dir, 'pki'));
    createCsrSigner({ store, pki, clusterSigningDurationMs: 60_000, log: createLogger({ level: 'error', write: () => undefined }) }).start(ac.signal);
    const k = await generateKeyPair('ecdsa-p256');
    const mk = async (name: string, cn: string, orgs: string[], labels: Record<string, string> = {}): Promise<void> => {
      const pem = await createCsr({ commonName: cn, organizations: orgs, privateKeyPem: k.privateKeyPem });
      store.create(key(name), {
        apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name, labels },
        spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'key encipherment', 'client auth'], username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] },
        status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AdminApproved', message: 'approved by an admin' }] },
      });
    };
    const c1 = { 'open-cluster-management.io/cluster-name': 'cluster1' };
    const refused: [string, string, string[], Record<string, string>, RegExp][] = [
      ['hub-controller', 'ocm-ts:hub-controller', [], {}, /ocm-ts:hub-controller is reserved for the hub's own components/],
      ['hub-controller-labelled', 'ocm-ts:hub-controller', [`${P}cluster1`], c1, /ocm-ts:hub-controller is reserved/],
      ['masters', 'alice', ['system:masters'], {}, /system:masters group is not allowed/],
      ['masters-agent', `${P}cluster1:a`, [`${P}cluster1`, 'system:masters'], c1, /system:masters group is not allowed/],
      ['other-cluster', `${P}cluster2:x`, [`${P}cluster2`], c1, /not the identity named by the CSR's open-cluster-management.io labels: common name system:open-cluster-management:cluster2:x is not/],
      ['cluster1-labelled-cluster2', `${P}cluster1:a`, [`${P}cluster1`], { 'open-cluster-management.io/cluster-name': 'cluster2' }, /not the identity named/],
      ['addon-mismatch', `${P}cluster1:a`, [`${P}cluster1`], { ...c1, 'open-cluster-management.io/addon-name': 'addon1' }, /not the identity named/],
    ];
    for (const [name, cn, orgs, labels] of refused) await mk(name, cn, orgs, labels);
    await mk('alice', 'alice', ['team-a']);
    await mk('agent', `${P}cluster1:agent1`, [`${P}cluster1`, `${P}managed-clusters`], c1);
    await mk('addon', `${P}cluster:cluster1:addon:addon1:agent:addon1`, [`${P}cluster:cluster1:addon:addon1`], { ...c1, 'open-cluster-management.io/addon-name': 'addon1' });

    for (const [name, , , , message] of refused) {
      const failed = await waitFor(() => (store.get(key(name))?.object.status as { conditions?: Array<{ type: string; reason: string; message: string }> }).conditions?.find((x) => x.type === 'Failed'));
      assert.equal(failed.reason, 'SignerValidationFailure', name);
      assert.match(failed.message, message, name);
      assert.equal((store.get(key(name))!.object.status as { certificate?: string }).certificate, undefined, name);
    }
    for (const [name, cn] of [['alice', 'alice'], ['agent', `${P}cluster1:agent1`], ['addon', `${P}cluster:cluster1:addon:addon1:agent:addon1`]] as const) {
      const cert = await waitFor(() => (store.get(key(name))?.object.status as { certificate?: string } | undefined)?.certificate);
      assert.equal(parseCertificate(Buffer.from(cert, 'base64').toString('utf8')).commonName, cn);
    }
  } finally {
    ac.abort();
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
