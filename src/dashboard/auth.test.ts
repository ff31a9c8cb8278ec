import assert from 'node:assert/strict';
import { test } from 'node:test';
import { identify, isSameOriginWrite, parseCookies, routeAccess, SESSION_COOKIE, SessionStore, tokenDisplayName } from './auth.js';

test('should serve only the login page anonymously', () => {
  assert.equal(routeAccess('GET', '/login'), 'public');
  assert.equal(routeAccess('POST', '/login'), 'public');
  assert.equal(routeAccess('GET', '/'), 'page');
  for (const [m, p] of [['GET', '/app.js'], ['GET', '/api/events'], ['POST', '/api/clusters/a/accept'], ['GET', '/anything'], ['DELETE', '/login']] as const) assert.equal(routeAccess(m, p), 'api');
});

test('should identify a session by its cookie until it expires', () => {
  let now = 1000;
  const store = new SessionStore(60_000, () => now);
  const id = store.create({ kind: 'token', user: 'u', token: 't' });
  const cookie = `other=1; ${SESSION_COOKIE}=${id}`;
  assert.deepEqual(identify({ cookie, peer: undefined }, store), { kind: 'token', user: 'u', token: 't' });
  assert.equal(identify({ cookie: `${SESSION_COOKIE}=forged`, peer: undefined }, store), undefined);
  now += 60_000;
  assert.equal(identify({ cookie, peer: undefined }, store), undefined);
});

test('should take a verified client certificate, and never an unverified one', () => {
  const store = new SessionStore(60_000, () => 0);
  assert.deepEqual(identify({ cookie: undefined, peer: { authorized: true, commonName: 'admin', organizations: ['system:masters'] } }, store), { kind: 'certificate', user: 'admin', groups: ['system:masters'] });
  assert.equal(identify({ cookie: undefined, peer: { authorized: false, commonName: 'admin', organizations: ['system:masters'] } }, store), undefined);
});

test('should take writes only as JSON from the dashboard origin', () => {
  assert.equal(isSameOriginWrite({ contentType: 'application/json', host: 'h:1', origin: 'https://h:1' }), true);
  assert.equal(isSameOriginWrite({ contentType: 'application/json', host: 'h:1' }), true);
  assert.equal(isSameOriginWrite({ contentType: 'application/x-www-form-urlencoded', host: 'h:1', origin: 'https://h:1' }), false);
  assert.equal(isSameOriginWrite({ contentType: 'application/json', host: 'h:1', origin: 'https://evil.example' }), false);
});

test('should parse cookies and name token users', () => {
  assert.deepEqual([...parseCookies('a=1; b = 2;c=x=y; a=3')], [['a', '1'], ['b', '2'], ['c', 'x=y']]);
  const jwt = `h.${Buffer.from(JSON.stringify({ sub: 'system:serviceaccount:ns:sa' })).toString('base64url')}.s`;
  assert.equal(tokenDisplayName(jwt), 'system:serviceaccount:ns:sa');
  assert.equal(tokenDisplayName('abcdef.0123456789abcdef'), 'token user');
});
