import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { splitPemBlocks } from '../../util/pem.js';
import { createSelfSignedCa, issueCertificate, type ExtKeyUsageName } from '../../util/x509.js';
import { createX509Authenticator } from './x509-authenticator.js';

const HOUR = 3_600_000;
const pemToDer = (pem: string): Buffer => splitPemBlocks(pem)[0]!.der;
const now = Date.now();

async function fixture() {
  const ca = await createSelfSignedCa({ commonName: 'client-ca', notBefore: new Date(now - HOUR), notAfter: new Date(now + HOUR) });
  const other = await createSelfSignedCa({ commonName: 'other-ca', notBefore: new Date(now - HOUR), notAfter: new Date(now + HOUR) });
  const publicKey = createPublicKey(generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey).export({ type: 'spki', format: 'pem' }).toString();
  const issue = async (o: { commonName?: string; organizations?: string[]; extKeyUsages?: ExtKeyUsageName[]; by?: typeof ca; notAfter?: number }): Promise<Buffer> =>
    pemToDer(await issueCertificate({
      ca: o.by ?? ca,
      subject: { commonName: o.commonName ?? 'alice', organizations: o.organizations ?? ['g1', 'g2'] },
      publicKey,
      notBefore: new Date(now - HOUR),
      notAfter: new Date(o.notAfter ?? now + HOUR),
      keyUsages: ['digitalSignature'],
      extKeyUsages: o.extKeyUsages ?? ['clientAuth'],
    }));
  return { ca, other, issue };
}

test('x509 authentication: user and groups from the subject; CA, key usage, common name and validity checked', async () => {
  const { ca, other, issue } = await fixture();
  let clock = now;
  const authn = createX509Authenticator({ clientCaPem: ca.certPem, now: () => clock });
  const ok = authn.authenticate(await issue({}));
  assert.ok(ok.ok);
  assert.equal(ok.user.username, 'alice');
  assert.deepEqual(ok.user.groups, ['g1', 'g2']);
  assert.match(ok.user.extra?.['authentication.kubernetes.io/credential-id']?.[0] ?? '', /^X509SHA256=[0-9a-f]{64}$/);
  assert.ok(authn.authenticate(await issue({ extKeyUsages: [] })).ok, 'no extended key usage: any use');
  assert.ok(authn.authenticate(await issue({ extKeyUsages: ['any'] })).ok);
  assert.ok(authn.authenticate(await issue({ extKeyUsages: ['serverAuth', 'clientAuth'] })).ok);
  assert.deepEqual(authn.authenticate(await issue({ extKeyUsages: ['serverAuth'] })), { ok: false, why: 'certificate specifies an incompatible key usage' });
  assert.deepEqual(authn.authenticate(await issue({ commonName: '' })), { ok: false, why: 'certificate has an empty common name' });
  assert.deepEqual(authn.authenticate(await issue({ by: other })), { ok: false, why: 'certificate signed by unknown authority' });
  assert.deepEqual(authn.authenticate(Buffer.from('not a certificate')), { ok: false, why: 'malformed certificate' });
  const shortLived = await issue({ notAfter: now + 1000 });
  assert.ok(authn.authenticate(shortLived).ok);
  clock = now + 2000;
  assert.deepEqual(authn.authenticate(shortLived), { ok: false, why: 'certificate has expired' }, 'validity is checked on every request, cached or not');
});
