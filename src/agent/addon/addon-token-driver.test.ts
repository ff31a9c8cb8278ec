// Token driver: the pure refresh decision, token/UID parsing,
// subject rewriting, and Process with a fake hub.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedClusterAddOn } from '../../api/addon.js';
import type { Secret } from '../../api/core.js';
import type { Condition } from '../../api/meta.js';
import type { KubeClient } from '../../client/types.js';
import { nullLogger } from '../../util/logger.js';
import type { Clock } from '../../util/clock.js';
import {
  createAddonTokenDriver,
  parseServiceAccountUid,
  parseTokenClaims,
  refreshDueMs,
  tokenInfrastructure,
  tokenRefreshDecision,
  withTokenSubject,
} from './addon-token-driver.js';

const b64url = (v: unknown): string => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
/** An unsigned JWT-shaped token with the given claims (the driver never verifies signatures). */
function jwt(claims: Record<string, unknown>): string {
  return `${b64url({ alg: 'ES256' })}.${b64url(claims)}.${b64url('sig')}`;
}
const UID = 'sa-uid-1';
const saClaims = (iat: number, exp: number, uid = UID): Record<string, unknown> => ({ iat, exp, 'kubernetes.io': { namespace: 'c1', serviceaccount: { name: 'a1-agent', uid } } });
const NOW_S = 1_700_000_000;
const NOW = NOW_S * 1000;

test('tokenRefreshDecision table', () => {
  const cases: { name: string; token: string | undefined; refresh: boolean; refreshAtMs?: number }[] = [
    { name: 'fresh token - no refresh (refresh point at 80 % of the lifetime)', token: jwt(saClaims(NOW_S - 100, NOW_S + 900)), refresh: false, refreshAtMs: (NOW_S + 700) * 1000 },
    { name: 'just issued', token: jwt(saClaims(NOW_S, NOW_S + 3600)), refresh: false, refreshAtMs: (NOW_S + 2880) * 1000 },
    { name: 'token near expiry - refresh needed (15 % left)', token: jwt(saClaims(NOW_S - 850, NOW_S + 150)), refresh: true },
    { name: 'exactly 20 % left - refresh', token: jwt(saClaims(NOW_S - 800, NOW_S + 200)), refresh: true },
    { name: 'just above 20 % left - no refresh', token: jwt(saClaims(NOW_S - 799, NOW_S + 201)), refresh: false, refreshAtMs: (NOW_S + 201 - 200) * 1000 },
    { name: 'expired', token: jwt(saClaims(NOW_S - 1000, NOW_S - 1)), refresh: true },
    { name: 'exp == now', token: jwt(saClaims(NOW_S - 1000, NOW_S)), refresh: true },
    { name: 'empty secret data', token: undefined, refresh: true },
    { name: 'empty token', token: '', refresh: true },
    { name: 'invalid token format', token: 'not-a-jwt', refresh: true },
    { name: 'UID mismatch', token: jwt(saClaims(NOW_S, NOW_S + 3600, 'other-uid')), refresh: true },
    { name: 'no UID claim', token: jwt({ iat: NOW_S, exp: NOW_S + 3600 }), refresh: true },
    { name: 'exp == iat', token: jwt(saClaims(NOW_S + 10, NOW_S + 10)), refresh: true },
    { name: 'exp < iat', token: jwt(saClaims(NOW_S + 20, NOW_S + 10)), refresh: true },
  ];
  for (const c of cases) {
    const d = tokenRefreshDecision(c.token, UID, NOW);
    assert.equal(d.refresh, c.refresh, c.name);
    if (!d.refresh && c.refreshAtMs !== undefined) assert.equal(d.refreshAtMs, c.refreshAtMs, c.name);
    if (d.refresh) assert.ok(!c.token || !d.reason.includes(c.token), `${c.name}: reason does not carry the token`);
  }
});

test('refreshDueMs: 80 % of the lifetime; undefined when unparsable or lifetime ≤ 0', () => {
  assert.equal(refreshDueMs(jwt(saClaims(1000, 2000))), 1_800_000);
  assert.equal(refreshDueMs('x.y'), undefined);
  assert.equal(refreshDueMs(jwt(saClaims(2000, 2000))), undefined);
});

test('parseTokenClaims errors', () => {
  const cases: { name: string; token: string; err: RegExp }[] = [
    { name: '2 parts', token: 'a.b', err: /expected 3 parts, got 2/ },
    { name: '4 parts', token: 'a.b.c.d', err: /expected 3 parts, got 4/ },
    { name: 'bad base64', token: 'a.!!!.c', err: /not base64url/ },
    { name: 'not JSON', token: `a.${b64url('nope')}.c`, err: /not JSON/ },
    { name: 'missing exp', token: jwt({ iat: 1 }), err: /no exp claim/ },
    { name: 'missing iat', token: jwt({ exp: 1 }), err: /no iat claim/ },
  ];
  for (const c of cases) assert.throws(() => parseTokenClaims(c.token), c.err, c.name);
  assert.deepEqual(parseTokenClaims(jwt(saClaims(1, 2))), { iat: 1, exp: 2, uid: UID });
});

test('parseServiceAccountUid', () => {
  assert.equal(parseServiceAccountUid('ServiceAccount c1/a1-agent (UID: 1234-abcd) is ready'), '1234-abcd');
  assert.throws(() => parseServiceAccountUid('ServiceAccount c1/a1-agent is ready'), /^Error: ServiceAccount UID not found in message: /);
  assert.throws(() => parseServiceAccountUid('ServiceAccount c1/a1-agent (UID: 1234 is ready'), /^Error: malformed ServiceAccount UID in message: /);
  assert.throws(() => parseServiceAccountUid('ServiceAccount c1/a1-agent (UID: ) is ready'), /^Error: empty ServiceAccount UID in message: /);
});

const infraCond = (status: 'True' | 'False', message = `ServiceAccount c1/a1-agent (UID: ${UID}) is ready`): Condition => ({ type: 'TokenInfrastructureReady', status, reason: 'X', message });
function addon(conditions: Condition[] = [], subject: { user?: string; groups?: string[] } = { user: 'system:serviceaccount:c1:a1-agent' }): ManagedClusterAddOn {
  return {
    apiVersion: 'addon.open-cluster-management.io/v1beta1',
    kind: 'ManagedClusterAddOn',
    metadata: { name: 'a1', namespace: 'c1', uid: 'addon-uid', resourceVersion: '7' },
    status: { conditions, registrations: [{ type: 'kubeClient', kubeClient: { driver: 'token', subject } }] },
  };
}

test('tokenInfrastructure: absent/False → not ready; True+UID → ready; bad message → error', () => {
  assert.deepEqual(tokenInfrastructure(addon()), { ready: false });
  assert.deepEqual(tokenInfrastructure(addon([infraCond('False')])), { ready: false });
  assert.deepEqual(tokenInfrastructure(addon([infraCond('True')])), { ready: true, uid: UID });
  assert.throws(() => tokenInfrastructure(addon([infraCond('True', 'ready')])), /ServiceAccount UID not found/);
});

test('withTokenSubject: token user, groups dropped; unchanged → undefined; null kubeClient → error', () => {
  assert.equal(withTokenSubject(addon(), 'c1', 'a1'), undefined);
  const next = withTokenSubject(addon([], { user: 'u', groups: ['g'] }), 'c1', 'a1');
  assert.deepEqual(next?.status?.registrations?.[0]?.kubeClient, { driver: 'token', subject: { user: 'system:serviceaccount:c1:a1-agent' } });
  const noSubject = addon();
  noSubject.status!.registrations = [{ type: 'kubeClient', kubeClient: { driver: 'token' } }];
  assert.ok(withTokenSubject(noSubject, 'c1', 'a1'));
  const a = addon();
  a.status!.registrations = [{ type: 'kubeClient' }];
  assert.throws(() => withTokenSubject(a, 'c1', 'a1'), /kubeClient field should be set/);
});

interface FakeHub {
  client: Pick<KubeClient, 'request' | 'resource'>;
  requests: { method: string; path: string; body: unknown }[];
  patches: unknown[];
}
function fakeHub(respond: () => unknown): FakeHub {
  const requests: FakeHub['requests'] = [];
  const patches: unknown[] = [];
  const client = {
    request: async (method: string, path: string, body?: unknown) => {
      requests.push({ method, path, body });
      return respond();
    },
    resource: () => ({
      patch: async (_name: string, _type: string, patch: unknown) => {
        patches.push(patch);
        return {};
      },
    }),
  } as unknown as Pick<KubeClient, 'request' | 'resource'>;
  return { client, requests, patches };
}
const fixedClock: Clock = { now: () => NOW, sleep: async () => {}, setTimeout: () => ({ cancel() {} }) };
const emptySecret = (): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: 'ns', name: 'a1-hub-kubeconfig' }, data: {} });
const signal = new AbortController().signal;

test('process: waits for TokenInfrastructureReady, then requests a token and stores it with TokenRefreshed True', async () => {
  const issued = jwt(saClaims(NOW_S, NOW_S + 3600));
  const hub = fakeHub(() => ({ status: { token: issued, expirationTimestamp: '2023-11-14T23:13:20Z' } }));
  let current = addon();
  const due: number[] = [];
  const d = createAddonTokenDriver({ clusterName: 'c1', addonName: 'a1', hubClient: hub.client, getAddon: () => current, expirationSeconds: 3600, onRefreshDue: (t) => due.push(t), log: nullLogger(), clock: fixedClock });

  assert.deepEqual(await d.process('ctl', emptySecret(), {}, signal), {});
  assert.equal(hub.requests.length, 0, 'no TokenRequest before TokenInfrastructureReady');

  current = addon([infraCond('True')]);
  const out = await d.process('ctl', emptySecret(), {}, signal);
  assert.equal(out.error, undefined);
  assert.equal(hub.requests.length, 1);
  assert.equal(hub.requests[0]!.method, 'POST');
  assert.equal(hub.requests[0]!.path, '/api/v1/namespaces/c1/serviceaccounts/a1-agent/token');
  assert.deepEqual((hub.requests[0]!.body as { spec: unknown }).spec, { expirationSeconds: 3600 });
  assert.equal(Buffer.from(out.secret!.data!['token']!, 'base64').toString(), issued);
  assert.deepEqual(out.condition, { type: 'TokenRefreshed', status: 'True', reason: 'AddonTokenRefreshed', message: 'Addon token refreshed, expires at 2023-11-14T23:13:20Z' });
  assert.deepEqual(due, [(NOW_S + 2880) * 1000]);

  // the stored token is still good: nothing to do (and no additional data is stale)
  const again = await d.process('ctl', out.secret!, {}, signal);
  assert.deepEqual(again, {});
  assert.equal(hub.requests.length, 1);
});

test('process: additional data stale with a good token → secret handed back unchanged (no new token)', async () => {
  const good = jwt(saClaims(NOW_S, NOW_S + 3600));
  const hub = fakeHub(() => ({}));
  const d = createAddonTokenDriver({ clusterName: 'c1', addonName: 'a1', hubClient: hub.client, getAddon: () => addon([infraCond('True')]), expirationSeconds: 3600, log: nullLogger(), clock: fixedClock });
  const secret = emptySecret();
  secret.data = { token: Buffer.from(good).toString('base64') };
  const out = await d.process('ctl', secret, { 'cluster-name': Buffer.from('c1') }, signal);
  assert.equal(out.secret, secret);
  assert.equal(out.condition, undefined);
  assert.equal(hub.requests.length, 0);
});

test('process: subject not yet the token user → status patch only', async () => {
  const hub = fakeHub(() => ({}));
  const d = createAddonTokenDriver({ clusterName: 'c1', addonName: 'a1', hubClient: hub.client, getAddon: () => addon([infraCond('True')], { user: 'u', groups: ['g'] }), expirationSeconds: 3600, log: nullLogger(), clock: fixedClock });
  assert.deepEqual(await d.process('ctl', emptySecret(), {}, signal), {});
  assert.equal(hub.patches.length, 1);
  const patch = hub.patches[0] as { status: { registrations: { kubeClient: unknown }[] } };
  assert.deepEqual(patch.status.registrations[0]!.kubeClient, { driver: 'token', subject: { user: 'system:serviceaccount:c1:a1-agent' } });
  assert.equal(hub.requests.length, 0);
});

test('process: TokenRequest failure → TokenRefreshed False/TokenCreationFailed and an error', async () => {
  const hub = fakeHub(() => {
    throw new Error('serviceaccounts "a1-agent" is forbidden');
  });
  const d = createAddonTokenDriver({ clusterName: 'c1', addonName: 'a1', hubClient: hub.client, getAddon: () => addon([infraCond('True')]), expirationSeconds: 3600, log: nullLogger(), clock: fixedClock });
  const out = await d.process('ctl', emptySecret(), {}, signal);
  assert.equal(out.secret, undefined);
  assert.deepEqual(out.condition, { type: 'TokenRefreshed', status: 'False', reason: 'TokenCreationFailed', message: 'Failed to create token: serviceaccounts "a1-agent" is forbidden' });
  assert.equal(out.error?.message, 'failed to create token for ServiceAccount c1/a1-agent: serviceaccounts "a1-agent" is forbidden');
});

test('process: addon not found → nothing; bad TokenInfrastructureReady message → error', async () => {
  const hub = fakeHub(() => ({}));
  const none = createAddonTokenDriver({ clusterName: 'c1', addonName: 'a1', hubClient: hub.client, getAddon: () => undefined, expirationSeconds: 3600, log: nullLogger(), clock: fixedClock });
  assert.deepEqual(await none.process('ctl', emptySecret(), {}, signal), {});
  const bad = createAddonTokenDriver({ clusterName: 'c1', addonName: 'a1', hubClient: hub.client, getAddon: () => addon([infraCond('True', 'ready')]), expirationSeconds: 3600, log: nullLogger(), clock: fixedClock });
  const out = await bad.process('ctl', emptySecret(), {}, signal);
  assert.match(out.error?.message ?? '', /ServiceAccount UID not found in message: ready/);
  assert.equal(hub.requests.length, 0);
});

test('process: an issued token for another ServiceAccount UID is not stored (no refresh loop)', async () => {
  const hub = fakeHub(() => ({ status: { token: jwt(saClaims(NOW_S, NOW_S + 3600, 'recreated-sa-uid')), expirationTimestamp: '2023-11-14T23:13:20Z' } }));
  const d = createAddonTokenDriver({ clusterName: 'c1', addonName: 'a1', hubClient: hub.client, getAddon: () => addon([infraCond('True')]), expirationSeconds: 3600, log: nullLogger(), clock: fixedClock });
  const out = await d.process('ctl', emptySecret(), {}, signal);
  assert.equal(out.secret, undefined);
  assert.equal(out.condition?.status, 'False');
  assert.equal(out.condition?.reason, 'TokenCreationFailed');
  assert.match(out.error?.message ?? '', /^failed to create token for ServiceAccount c1\/a1-agent: the issued token is not usable: token was issued for ServiceAccount UID "recreated-sa-uid"/);
});
