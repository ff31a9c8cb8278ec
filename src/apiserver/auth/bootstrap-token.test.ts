import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../api/meta.js';
import { checkBootstrapToken, parseBootstrapToken } from './bootstrap-token.js';
import { parseTokenCsv, splitCsvLine, TokenFileError } from './token-file.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const NOW = Date.parse('2026-12-02T12:00:00Z');

function secret(data: Record<string, string>, extra: Partial<KubeObject> = {}): KubeObject {
  const d: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) d[k] = b64(v);
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token', data: d, ...extra };
}
const good = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' };
const tok = { id: 'abcdef', secret: '0123456789abcdef' };

test('parseBootstrapToken accepts only [a-z0-9]{6}.[a-z0-9]{16}', () => {
  assert.deepEqual(parseBootstrapToken('abcdef.0123456789abcdef'), tok);
  for (const bad of ['ABCDEF.0123456789abcdef', 'abcde.0123456789abcdef', 'abcdef.0123456789abcde', 'abcdef0123456789abcdef', 'abcdef.0123456789abcdef.x', '']) {
    assert.equal(parseBootstrapToken(bad), undefined, bad);
  }
});

const cases: Array<{ name: string; token?: typeof tok; secret: KubeObject | undefined; ok: boolean; groups?: string[]; why?: RegExp }> = [
  { name: 'valid token, no extra groups', secret: secret(good), ok: true, groups: ['system:bootstrappers'] },
  { name: 'valid token with extra groups', secret: secret({ ...good, 'auth-extra-groups': 'system:bootstrappers:managedcluster, system:bootstrappers:x-y' }), ok: true, groups: ['system:bootstrappers', 'system:bootstrappers:managedcluster', 'system:bootstrappers:x-y'] },
  { name: 'not yet expired', secret: secret({ ...good, expiration: '2026-12-02T13:00:00Z' }), ok: true, groups: ['system:bootstrappers'] },
  { name: 'expired', secret: secret({ ...good, expiration: '2026-12-02T11:59:59Z' }), ok: false, why: /expired/ },
  { name: 'expiration exactly now', secret: secret({ ...good, expiration: '2026-12-02T12:00:00Z' }), ok: false, why: /expired/ },
  { name: 'unparseable expiration', secret: secret({ ...good, expiration: 'tomorrow' }), ok: false, why: /expiration/ },
  { name: 'wrong secret', token: { id: 'abcdef', secret: 'ffffffffffffffff' }, secret: secret(good), ok: false, why: /does not match/ },
  { name: 'id mismatch in data', secret: secret({ ...good, 'token-id': 'zzzzzz' }), ok: false, why: /does not match/ },
  { name: 'usage not enabled', secret: secret({ ...good, 'usage-bootstrap-authentication': 'false' }), ok: false, why: /not usable/ },
  { name: 'usage missing', secret: secret({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef' }), ok: false, why: /not usable/ },
  { name: 'wrong type', secret: secret(good, { type: 'Opaque' }), ok: false, why: /type/ },
  { name: 'being deleted', secret: secret(good, { metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system', deletionTimestamp: '2026-12-02T11:00:00Z' } }), ok: false, why: /deleted/ },
  { name: 'bad extra group', secret: secret({ ...good, 'auth-extra-groups': 'system:masters' }), ok: false, why: /auth-extra-groups/ },
  { name: 'no secret', secret: undefined, ok: false, why: /no bootstrap token secret/ },
];

for (const c of cases) {
  test(`checkBootstrapToken: ${c.name}`, () => {
    const r = checkBootstrapToken(c.token ?? tok, c.secret, NOW);
    assert.equal(r.ok, c.ok);
    if (r.ok) {
      assert.equal(r.user.username, 'system:bootstrap:abcdef');
      assert.deepEqual(r.user.groups, c.groups);
    } else {
      assert.match(r.why, c.why!);
      assert.ok(!r.why.includes('0123456789abcdef') && !r.why.includes('ffffffffffffffff'));
    }
  });
}

test('parseTokenCsv reads token,user,uid[,groups] with quoting', () => {
  const entries = parseTokenCsv('# comment\nt1,alice,uid1\n\nt2,bob,,"g1,g2"\nt3, carol , u3 ,single\n');
  assert.deepEqual(entries, [
    { token: 't1', user: { username: 'alice', uid: 'uid1', groups: [] } },
    { token: 't2', user: { username: 'bob', groups: ['g1', 'g2'] } },
    { token: 't3', user: { username: 'carol', uid: 'u3', groups: ['single'] } },
  ]);
  assert.deepEqual(splitCsvLine('a,"b ""q"" c",d'), ['a', 'b "q" c', 'd']);
});

test('parseTokenCsv rejects malformed lines without echoing the token', () => {
  for (const text of ['secrettoken,alice', 'secrettoken,,uid', ',alice,uid', 'secrettoken,a,u\nsecrettoken,b,u', 'secrettoken,a,u,"g1']) {
    assert.throws(() => parseTokenCsv(text), (e: unknown) => e instanceof TokenFileError && !e.message.includes('secrettoken'));
  }
});
