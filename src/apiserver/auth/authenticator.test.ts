import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../storage/sqlite-store.js';
import { storageKey, type AuthenticationRequest } from '../pipeline.js';
import { createLogger } from '../../util/logger.js';
import { ensurePki } from '../pki/index.js';
import { createAuthenticator } from './authenticator.js';
import { createServiceAccountTokens } from './service-account-token.js';
import { createSelfSignedCa, generateKeyPair, issueCertificate, splitPemBlocks } from '../../util/x509.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const der = (pem: string): Buffer => splitPemBlocks(pem)[0]!.der;

test('should authenticate x509, static, bootstrap and service-account credentials and reject bad ones', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-authn-'));
  const store = openSqliteStore({ path: ':memory:' });
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', write: (l) => lines.push(l) });
  let now = Date.now();
  const clock = { now: () => now, sleep: async () => {}, setTimeout: () => ({ cancel() {} }) };
  try {
    const pki = await ensurePki(join(dir, 'pki'));
    const tokenFile = join(dir, 'tokens.csv');
    await writeFile(tokenFile, 'statictoken-aaaa,admin,uid-1,"system:masters,ops"\n', { mode: 0o600 });
    const sa = createServiceAccountTokens({ keyPem: pki.serviceAccountKeyPem, issuer: 'https://127.0.0.1:6443', store, clock });
    const authn = createAuthenticator({ store, pki, tokenFile, serviceAccountTokens: sa, clock, log });
    const req = (r: Partial<AuthenticationRequest>): AuthenticationRequest => ({ headers: {}, ...r });

    // x509 from our CA
    const agent = await pki.issueClientCertificate({ commonName: 'system:open-cluster-management:c1:agent1', organizations: ['system:open-cluster-management:c1', 'system:open-cluster-management:managed-clusters'], validityMs: 3_600_000 });
    const r1 = authn.authenticate(req({ clientCertificateDer: der(agent.certPem), headers: { authorization: 'Bearer statictoken-aaaa' } }));
    assert.equal(r1.kind, 'user');
    assert.equal(r1.kind === 'user' && r1.user.username, 'system:open-cluster-management:c1:agent1');
    assert.deepEqual(r1.kind === 'user' && r1.user.groups, ['system:open-cluster-management:c1', 'system:open-cluster-management:managed-clusters', 'system:authenticated']);

    // certificate from another CA → 401 (even though it looks the same)
    const otherCa = await createSelfSignedCa({ commonName: 'evil', notBefore: new Date(now - 1000), notAfter: new Date(now + 3_600_000) });
    const k = await generateKeyPair();
    const forged = await issueCertificate({ ca: otherCa, subject: { commonName: 'ocm-ts:admin', organizations: ['system:masters'] }, publicKey: k.publicKeyPem, notBefore: new Date(now - 1000), notAfter: new Date(now + 3_600_000), keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'] });
    assert.equal(authn.authenticate(req({ clientCertificateDer: der(forged) })).kind, 'unauthorized');
    // bad cert but a good token → the token authenticates
    const r2 = authn.authenticate(req({ clientCertificateDer: der(forged), headers: { authorization: 'bearer statictoken-aaaa' } }));
    assert.equal(r2.kind === 'user' && r2.user.username, 'admin');
    assert.deepEqual(r2.kind === 'user' && r2.user.groups, ['system:masters', 'ops', 'system:authenticated']);

    // serverAuth-only certificate from our CA → 401
    const srvOnly = await issueCertificate({ ca: pki.signingCa, subject: { commonName: 'x' }, publicKey: k.publicKeyPem, notBefore: new Date(now - 1000), notAfter: new Date(now + 3_600_000), keyUsages: ['digitalSignature'], extKeyUsages: ['serverAuth'] });
    assert.equal(authn.authenticate(req({ clientCertificateDer: der(srvOnly) })).kind, 'unauthorized');

    // expired (clock moved past notAfter) → 401; cached verification still re-checks validity
    now += 2 * 3_600_000;
    assert.equal(authn.authenticate(req({ clientCertificateDer: der(agent.certPem) })).kind, 'unauthorized');
    now -= 2 * 3_600_000;

    // bootstrap tokens
    store.create(storageKey('', 'secrets', 'kube-system', 'bootstrap-token-abcdef'), {
      apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token',
      data: { 'token-id': b64('abcdef'), 'token-secret': b64('0123456789abcdef'), 'usage-bootstrap-authentication': b64('true'), 'auth-extra-groups': b64('system:bootstrappers:managedcluster'), expiration: b64(new Date(now + 60_000).toISOString()) },
    });
    const r3 = authn.authenticate(req({ headers: { authorization: 'Bearer abcdef.0123456789abcdef' } }));
    assert.equal(r3.kind === 'user' && r3.user.username, 'system:bootstrap:abcdef');
    assert.deepEqual(r3.kind === 'user' && r3.user.groups, ['system:bootstrappers', 'system:bootstrappers:managedcluster', 'system:authenticated']);
    assert.equal(authn.authenticate(req({ headers: { authorization: 'Bearer abcdef.ffffffffffffffff' } })).kind, 'unauthorized');
    assert.equal(authn.authenticate(req({ headers: { authorization: 'Bearer zzzzzz.0123456789abcdef' } })).kind, 'unauthorized');
    now += 120_000;
    assert.equal(authn.authenticate(req({ headers: { authorization: 'Bearer abcdef.0123456789abcdef' } })).kind, 'unauthorized');
    now -= 120_000;

    // unknown token → 401; not Bearer / empty → anonymous
    assert.equal(authn.authenticate(req({ headers: { authorization: 'Bearer nope' } })).kind, 'unauthorized');
    for (const h of [undefined, 'Basic dXNlcjpwdw==', 'Bearer ', 'Bearer']) {
      const r = authn.authenticate(req({ headers: h === undefined ? {} : { authorization: h } }));
      assert.equal(r.kind, 'anonymous', String(h));
      assert.deepEqual(r.kind === 'anonymous' && r.user, { username: 'system:anonymous', groups: ['system:unauthenticated'] });
    }

    // service-account tokens: valid while the SA exists with the same uid
    store.create(storageKey('', 'serviceaccounts', 'open-cluster-management', 'agent-registration-bootstrap'), { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'agent-registration-bootstrap', namespace: 'open-cluster-management', uid: 'sa-uid-1' } });
    const tr = sa.handleTokenRequest({ metadata: {}, spec: { expirationSeconds: 3600 } }, 'open-cluster-management', 'agent-registration-bootstrap');
    const saToken = (tr.status as { token: string }).token;
    const r4 = authn.authenticate(req({ headers: { authorization: `Bearer ${saToken}` } }));
    assert.equal(r4.kind === 'user' && r4.user.username, 'system:serviceaccount:open-cluster-management:agent-registration-bootstrap');
    assert.deepEqual(r4.kind === 'user' && r4.user.groups, ['system:serviceaccounts', 'system:serviceaccounts:open-cluster-management', 'system:authenticated']);
    const tampered = saToken.slice(0, -4) + (saToken.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    assert.equal(authn.authenticate(req({ headers: { authorization: `Bearer ${tampered}` } })).kind, 'unauthorized');
    assert.throws(() => sa.handleTokenRequest({ metadata: {}, spec: { expirationSeconds: 599 } }, 'open-cluster-management', 'agent-registration-bootstrap'), /may not specify a duration less than 10 minutes/);
    assert.throws(() => sa.handleTokenRequest({ metadata: {}, spec: {} }, 'open-cluster-management', 'missing'), /serviceaccounts "missing" not found/);
    store.delete(storageKey('', 'serviceaccounts', 'open-cluster-management', 'agent-registration-bootstrap'));
    assert.equal(authn.authenticate(req({ headers: { authorization: `Bearer ${saToken}` } })).kind, 'unauthorized');

    // anonymous disabled
    const strict = createAuthenticator({ store, pki, anonymous: false, clock });
    assert.equal(strict.authenticate(req({})).kind, 'unauthorized');

    // no secret material in any log line
    const all = lines.join('\n');
    for (const secret of ['statictoken-aaaa', '0123456789abcdef', 'ffffffffffffffff', saToken.split('.')[2]!, 'PRIVATE KEY']) {
      assert.ok(!all.includes(secret), `log leaks ${secret.slice(0, 4)}…`);
    }
    assert.ok(lines.length > 0);
  } finally {
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
});
