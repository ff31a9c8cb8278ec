import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../http/errors.js';
import type { Authorizer, RequestAttributes, UserInfo } from '../pipeline.js';
import {
  actAs, impersonatedUser, impersonationAttributes, parseImpersonationHeaders, splitServiceAccountUsername, type DistinctHeaders,
} from './impersonation.js';

const admin: UserInfo = { username: 'admin', groups: ['system:authenticated'] };

/** Allows `impersonate` only for the listed `<resource>[/<sub>]:<name>` entries. */
function allowing(...allowed: string[]): Authorizer & { seen: RequestAttributes[] } {
  const seen: RequestAttributes[] = [];
  return {
    seen,
    authorize(a) {
      seen.push(a);
      const r = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
      return { decision: a.verb === 'impersonate' && allowed.includes(`${r}:${a.name}`) ? 'allow' : 'noOpinion', reason: '' };
    },
  };
}

function request(headers: DistinctHeaders): { headers: Record<string, unknown>; headersDistinct: DistinctHeaders } {
  const joined: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(headers)) joined[k] = v?.join(', ');
  return { headers: joined, headersDistinct: { ...headers } };
}

test('should parse impersonation headers into targets in authorisation order', () => {
  const cases: Array<{ name: string; headers: DistinctHeaders; expected: ReturnType<typeof parseImpersonationHeaders> }> = [
    { name: 'no headers', headers: { accept: ['application/json'] }, expected: [] },
    { name: 'empty user', headers: { 'impersonate-user': [''] }, expected: [] },
    { name: 'user', headers: { 'impersonate-user': ['nobody'] }, expected: [{ kind: 'User', name: 'nobody' }] },
    {
      name: 'service account user',
      headers: { 'impersonate-user': ['system:serviceaccount:ns1:builder'] },
      expected: [{ kind: 'ServiceAccount', namespace: 'ns1', name: 'builder' }],
    },
    {
      name: 'malformed service account user stays a user',
      headers: { 'impersonate-user': ['system:serviceaccount:NS:x:y'] },
      expected: [{ kind: 'User', name: 'system:serviceaccount:NS:x:y' }],
    },
    {
      name: 'user, repeated groups, extras with a percent-encoded key, uid',
      headers: {
        'impersonate-uid': ['u-1'],
        'impersonate-group': ['g1', 'g,2'],
        'impersonate-extra-example.com%2fscopes': ['a', 'b'],
        'impersonate-user': ['alice'],
      },
      expected: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'g1' },
        { kind: 'Group', name: 'g,2' },
        { kind: 'UserExtra', key: 'example.com/scopes', value: 'a' },
        { kind: 'UserExtra', key: 'example.com/scopes', value: 'b' },
        { kind: 'UID', uid: 'u-1' },
      ],
    },
    {
      name: 'malformed percent-encoding is kept as sent',
      headers: { 'impersonate-user': ['alice'], 'impersonate-extra-a%zz': ['v'] },
      expected: [{ kind: 'User', name: 'alice' }, { kind: 'UserExtra', key: 'a%zz', value: 'v' }],
    },
  ];
  for (const c of cases) assert.deepEqual(parseImpersonationHeaders(c.headers), c.expected, c.name);
});

test('should refuse groups, extras or a uid without a user with a 400 in kube-apiserver wording', () => {
  for (const headers of [{ 'impersonate-group': ['g1'] }, { 'impersonate-extra-scopes': ['x'] }, { 'impersonate-uid': ['1'] }, { 'impersonate-user': [''], 'impersonate-group': ['g'] }]) {
    assert.throws(() => parseImpersonationHeaders(headers), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 400);
      assert.equal(e.reason, 'BadRequest');
      assert.match(e.message, /^requested \[\{.*\}\] without impersonating a user$/);
      return true;
    });
  }
  assert.throws(() => parseImpersonationHeaders({ 'impersonate-group': ['g1'] }), { message: 'requested [{Group  g1    }] without impersonating a user' });
});

test('should split only valid service-account user names', () => {
  const cases: Array<[string, ReturnType<typeof splitServiceAccountUsername>]> = [
    ['system:serviceaccount:kube-system:default', { namespace: 'kube-system', name: 'default' }],
    ['system:serviceaccount:ns:a.b', { namespace: 'ns', name: 'a.b' }],
    ['system:serviceaccount:ns', undefined],
    ['system:serviceaccount::name', undefined],
    ['system:serviceaccount:ns:', undefined],
    ['system:serviceaccount:a.b:name', undefined],
    ['system:serviceaccounts:ns:name', undefined],
    ['alice', undefined],
  ];
  for (const [input, expected] of cases) assert.deepEqual(splitServiceAccountUsername(input), expected, input);
});

test('should check each target with the impersonate verb on its resource', () => {
  const cases: Array<{ target: Parameters<typeof impersonationAttributes>[0]; expected: Partial<RequestAttributes> }> = [
    { target: { kind: 'User', name: 'nobody' }, expected: { apiGroup: '', resource: 'users', subresource: '', namespace: '', name: 'nobody' } },
    { target: { kind: 'ServiceAccount', namespace: 'ns', name: 'sa' }, expected: { apiGroup: '', resource: 'serviceaccounts', namespace: 'ns', name: 'sa' } },
    { target: { kind: 'Group', name: 'g' }, expected: { apiGroup: '', resource: 'groups', name: 'g' } },
    { target: { kind: 'UserExtra', key: 'scopes', value: 'v' }, expected: { apiGroup: 'authentication.k8s.io', resource: 'userextras', subresource: 'scopes', name: 'v' } },
    { target: { kind: 'UID', uid: 'u1' }, expected: { apiGroup: 'authentication.k8s.io', resource: 'uids', name: 'u1' } },
  ];
  for (const c of cases) {
    const a = impersonationAttributes(c.target, admin);
    assert.equal(a.verb, 'impersonate');
    assert.equal(a.resourceRequest, true);
    assert.equal(a.user, admin);
    for (const [k, v] of Object.entries(c.expected)) assert.equal(a[k as keyof RequestAttributes], v, `${c.target.kind}.${k}`);
  }
});

test('should build the impersonated identity as kube-apiserver does', () => {
  const cases: Array<{ name: string; targets: Parameters<typeof impersonatedUser>[0]; expected: UserInfo }> = [
    { name: 'user gets system:authenticated', targets: [{ kind: 'User', name: 'nobody' }], expected: { username: 'nobody', groups: ['system:authenticated'] } },
    {
      name: 'service account gets its groups',
      targets: [{ kind: 'ServiceAccount', namespace: 'ns1', name: 'sa' }],
      expected: { username: 'system:serviceaccount:ns1:sa', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] },
    },
    {
      name: 'service account with explicit groups gets only those',
      targets: [{ kind: 'ServiceAccount', namespace: 'ns1', name: 'sa' }, { kind: 'Group', name: 'g' }],
      expected: { username: 'system:serviceaccount:ns1:sa', groups: ['g', 'system:authenticated'] },
    },
    {
      name: 'explicit system:unauthenticated is kept alone',
      targets: [{ kind: 'User', name: 'u' }, { kind: 'Group', name: 'system:unauthenticated' }],
      expected: { username: 'u', groups: ['system:unauthenticated'] },
    },
    { name: 'anonymous gets system:unauthenticated', targets: [{ kind: 'User', name: 'system:anonymous' }], expected: { username: 'system:anonymous', groups: ['system:unauthenticated'] } },
    {
      name: 'uid and extras',
      targets: [{ kind: 'User', name: 'u' }, { kind: 'UserExtra', key: 'k', value: 'a' }, { kind: 'UserExtra', key: 'k', value: 'b' }, { kind: 'UID', uid: 'x' }],
      expected: { username: 'u', groups: ['system:authenticated'], uid: 'x', extra: { k: ['a', 'b'] } },
    },
  ];
  for (const c of cases) assert.deepEqual(impersonatedUser(c.targets), c.expected, c.name);
});

test('should run as the requester when no impersonation is asked for', () => {
  const authz = allowing();
  const r = actAs(request({ accept: ['*/*'] }), admin, authz);
  assert.deepEqual(r, { user: admin });
  assert.equal(authz.seen.length, 0);
});

test('should act as the impersonated identity, name the impersonator and remove the headers', () => {
  const authz = allowing('users:agent', 'groups:system:open-cluster-management:c1', 'userextras/scopes:s1', 'uids:42');
  const req = request({ 'impersonate-user': ['agent'], 'impersonate-group': ['system:open-cluster-management:c1'], 'impersonate-extra-scopes': ['s1'], 'impersonate-uid': ['42'], accept: ['*/*'] });
  const r = actAs(req, admin, authz);
  assert.deepEqual(r, {
    user: { username: 'agent', groups: ['system:open-cluster-management:c1', 'system:authenticated'], uid: '42', extra: { scopes: ['s1'] } },
    impersonator: 'admin',
  });
  assert.equal(authz.seen.length, 4);
  assert.deepEqual(Object.keys(req.headers), ['accept']);
  assert.deepEqual(Object.keys(req.headersDistinct), ['accept']);
});

test('should refuse with a 403 naming the first part the requester may not impersonate', () => {
  const cases: Array<{ headers: DistinctHeaders; allowed: string[]; message: string }> = [
    {
      headers: { 'impersonate-user': ['nobody'] },
      allowed: [],
      message: 'users "nobody" is forbidden: User "admin" cannot impersonate resource "users" in API group "" at the cluster scope',
    },
    {
      headers: { 'impersonate-user': ['nobody'], 'impersonate-group': ['system:masters'] },
      allowed: ['users:nobody'],
      message: 'groups "system:masters" is forbidden: User "admin" cannot impersonate resource "groups" in API group "" at the cluster scope',
    },
    {
      headers: { 'impersonate-user': ['system:serviceaccount:ns1:sa'] },
      allowed: ['users:system:serviceaccount:ns1:sa'],
      message: 'serviceaccounts "sa" is forbidden: User "admin" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"',
    },
    {
      headers: { 'impersonate-user': ['u'], 'impersonate-extra-scopes': ['s'] },
      allowed: ['users:u'],
      message: 'userextras.authentication.k8s.io "s" is forbidden: User "admin" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
    },
  ];
  for (const c of cases) {
    const req = request(c.headers);
    assert.throws(() => actAs(req, admin, allowing(...c.allowed)), (e: unknown) => {
      assert.ok(e instanceof ApiError);
      assert.equal(e.code, 403);
      assert.equal(e.message, c.message);
      return true;
    });
    assert.ok(Object.keys(req.headers).some((h) => h.startsWith('impersonate-')), 'headers stay on a refused request');
  }
});
