import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakdownRule, compactRules, compactString, covers, escalationMessage, FULL_AUTHORITY, ruleCovers } from './rbac-covers.js';
import type { PolicyRule } from './rbac-rules.js';

test('should break a rule down into single group, resource, verb and name pieces', () => {
  assert.deepEqual(breakdownRule({ apiGroups: ['', 'apps'], resources: ['pods'], verbs: ['get', 'list'] }), [
    { apiGroups: [''], resources: ['pods'], verbs: ['get'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
    { apiGroups: ['apps'], resources: ['pods'], verbs: ['get'] },
    { apiGroups: ['apps'], resources: ['pods'], verbs: ['list'] },
  ]);
  assert.deepEqual(breakdownRule({ apiGroups: [''], resources: ['secrets'], resourceNames: ['a', 'b'], verbs: ['get'] }), [
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['b'] },
  ]);
  assert.deepEqual(breakdownRule({ nonResourceURLs: ['/healthz', '/version'], verbs: ['get'] }), [
    { nonResourceURLs: ['/healthz'], verbs: ['get'] },
    { nonResourceURLs: ['/version'], verbs: ['get'] },
  ]);
  assert.deepEqual(breakdownRule({ resources: ['pods'], verbs: ['get'] }), [], 'a rule without groups grants nothing');
});

test('should decide whether an owner rule covers a piece', () => {
  const piece = (r: PolicyRule): PolicyRule => r;
  const cases: Array<{ name: string; owner: PolicyRule; sub: PolicyRule; expected: boolean }> = [
    { name: 'exact', owner: { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }, sub: piece({ apiGroups: [''], resources: ['pods'], verbs: ['get'] }), expected: true },
    { name: 'other verb', owner: { apiGroups: [''], resources: ['pods'], verbs: ['get'] }, sub: { apiGroups: [''], resources: ['pods'], verbs: ['delete'] }, expected: false },
    { name: 'verb *', owner: { apiGroups: [''], resources: ['pods'], verbs: ['*'] }, sub: { apiGroups: [''], resources: ['pods'], verbs: ['escalate'] }, expected: true },
    { name: 'group *', owner: { apiGroups: ['*'], resources: ['pods'], verbs: ['get'] }, sub: { apiGroups: ['apps'], resources: ['pods'], verbs: ['get'] }, expected: true },
    { name: 'other group', owner: { apiGroups: [''], resources: ['pods'], verbs: ['get'] }, sub: { apiGroups: ['apps'], resources: ['pods'], verbs: ['get'] }, expected: false },
    { name: 'resource *', owner: { apiGroups: [''], resources: ['*'], verbs: ['get'] }, sub: { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] }, expected: true },
    { name: '*/sub covers a subresource', owner: { apiGroups: [''], resources: ['*/status'], verbs: ['get'] }, sub: { apiGroups: [''], resources: ['pods/status'], verbs: ['get'] }, expected: true },
    { name: '*/sub does not cover the resource', owner: { apiGroups: [''], resources: ['*/status'], verbs: ['get'] }, sub: { apiGroups: [''], resources: ['pods'], verbs: ['get'] }, expected: false },
    { name: 'resource does not cover its subresource', owner: { apiGroups: [''], resources: ['pods'], verbs: ['get'] }, sub: { apiGroups: [''], resources: ['pods/status'], verbs: ['get'] }, expected: false },
    { name: 'any name covers one name', owner: { apiGroups: [''], resources: ['secrets'], verbs: ['get'] }, sub: { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a'] }, expected: true },
    { name: 'named covers the same name', owner: { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a', 'b'] }, sub: { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['b'] }, expected: true },
    { name: 'named does not cover another name', owner: { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a'] }, sub: { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['c'] }, expected: false },
    { name: 'named does not cover every name', owner: { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a'] }, sub: { apiGroups: [''], resources: ['secrets'], verbs: ['get'] }, expected: false },
    { name: 'url exact', owner: { nonResourceURLs: ['/healthz'], verbs: ['get'] }, sub: { nonResourceURLs: ['/healthz'], verbs: ['get'] }, expected: true },
    { name: 'url prefix', owner: { nonResourceURLs: ['/apis/*'], verbs: ['get'] }, sub: { nonResourceURLs: ['/apis/x/v1'], verbs: ['get'] }, expected: true },
    { name: 'url other', owner: { nonResourceURLs: ['/healthz'], verbs: ['get'] }, sub: { nonResourceURLs: ['/metrics'], verbs: ['get'] }, expected: false },
    { name: 'resource rule does not cover a url', owner: { apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, sub: { nonResourceURLs: ['/metrics'], verbs: ['get'] }, expected: false },
  ];
  for (const c of cases) assert.equal(ruleCovers(c.owner, c.sub), c.expected, c.name);
});

test('should match a wildcard URL with a long run of stars inside in linear time', () => {
  const owner: PolicyRule = { nonResourceURLs: [`/x${'*'.repeat(100_000)}y*`], verbs: ['get'] };
  const started = performance.now();
  assert.equal(ruleCovers(owner, { nonResourceURLs: [`/x${'*'.repeat(100_000)}yz`], verbs: ['get'] }), true);
  assert.equal(ruleCovers(owner, { nonResourceURLs: ['/x'], verbs: ['get'] }), false);
  assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
});

test('should cover with the union of owner rules and list the missing pieces', () => {
  const owner: PolicyRule[] = [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
    { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
  ];
  assert.deepEqual(covers(owner, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create'] }]), { covered: true, missing: [] });
  assert.deepEqual(covers(owner, []), { covered: true, missing: [] });
  const r = covers(owner, [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'delete'] }]);
  assert.equal(r.covered, false);
  assert.deepEqual(r.missing, [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['delete'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['delete'] },
  ]);
  assert.equal(covers(FULL_AUTHORITY, FULL_AUTHORITY).covered, true);
  assert.equal(covers(owner, FULL_AUTHORITY).covered, false);
});

test('should compact pieces that differ only by verb and print them as kube-apiserver does', () => {
  const compacted = compactRules([
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['list'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a'] },
  ]);
  assert.deepEqual(compacted, [
    { nonResourceURLs: ['/metrics'], verbs: ['get'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
    { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['a'] },
  ]);
  assert.equal(compactString({ apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] }), '{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list"]}');
  assert.equal(compactString({ apiGroups: ['a'], resources: ['b'], resourceNames: ['n'], verbs: ['get'] }), '{APIGroups:["a"], Resources:["b"], ResourceNames:["n"], Verbs:["get"]}');
  assert.equal(compactString({ nonResourceURLs: ['*'], verbs: ['*'] }), '{NonResourceURLs:["*"], Verbs:["*"]}');
});

test('should describe an escalation with the user, its groups and the sorted missing permissions', () => {
  const msg = escalationMessage({ username: 'u', groups: ['g1', 'system:authenticated'] }, covers([], FULL_AUTHORITY).missing);
  assert.equal(msg, 'user "u" (groups=["g1" "system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n'
    + '{APIGroups:["*"], Resources:["*"], Verbs:["*"]}\n{NonResourceURLs:["*"], Verbs:["*"]}');
});
