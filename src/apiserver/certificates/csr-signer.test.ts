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
