// RBAC escalation prevention and ClusterRole aggregation over real HTTPS: an identity allowed to
// write RBAC objects may only grant what it holds, unless it has `escalate` (roles) or `bind` (the
// referenced role); aggregated ClusterRoles follow the roles their selectors match.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer, type TestApiServer } from '../../helpers/embedded-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { identityClient, type IdentityClient, type IdentityResponse } from './identity-client.js';

const G = 'rbac.authorization.k8s.io';
const V = `${G}/v1`;
const CR = `/apis/${G}/v1/clusterroles`;
const CRB = `/apis/${G}/v1/clusterrolebindings`;
const roles = (ns: string): string => `/apis/${G}/v1/namespaces/${ns}/roles`;
const roleBindings = (ns: string): string => `/apis/${G}/v1/namespaces/${ns}/rolebindings`;
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
  verbs: string[];
}
const clusterRole = (name: string, rules: Rule[], labels?: Record<string, string>): Record<string, unknown> => ({ apiVersion: V, kind: 'ClusterRole', metadata: { name, ...(labels ? { labels } : {}) }, rules });
const role = (ns: string, name: string, rules: Rule[]): Record<string, unknown> => ({ apiVersion: V, kind: 'Role', metadata: { name, namespace: ns }, rules });
const binding = (kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, roleKind: string, roleName: string, user: string, ns?: string): Record<string, unknown> => ({
  apiVersion: V, kind, metadata: { name, ...(ns ? { namespace: ns } : {}) },
  roleRef: { apiGroup: G, kind: roleKind, name: roleName }, subjects: [{ apiGroup: G, kind: 'User', name: user }],
});

const RBAC_WRITE: Rule = { apiGroups: [G], resources: ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings'], verbs: ['get', 'create', 'update', 'patch'] };
const CM_READ: Rule = { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] };

function assertForbidden(r: IdentityResponse, start: string): void {
  assert.equal(r.status, 403, r.text);
  assert.equal(r.json?.kind, 'Status');
  assert.equal(r.json?.reason, 'Forbidden');
  assert.ok(r.json?.message?.startsWith(start), r.json?.message);
}

function assertCreated(r: IdentityResponse): void {
  assert.equal(r.status, 201, r.text);
}

describe('RBAC escalation prevention', () => {
  let srv: TestApiServer;
  let admin: IdentityClient;
  let writer: IdentityClient;
  let binder: IdentityClient;
  let escalator: IdentityClient;

  before(async () => {
    srv = await startTestApiServer();
    const pki = srv.server.pki;
    const client = async (cn: string, orgs: string[] = []): Promise<IdentityClient> => identityClient(srv.url, pki.caPem, await pki.issueClientCertificate({ commonName: cn, organizations: orgs }));
    admin = await client('test-admin', ['system:masters']);
    writer = await client('writer');
    binder = await client('binder');
    escalator = await client('escalator');
    assertCreated(await admin.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
    // writer: may write RBAC objects and read configmaps; binder: also `bind` on cluster-admin;
    // escalator: also `escalate` on clusterroles.
    for (const [path, body] of [
      [CR, clusterRole('rbac-writer', [RBAC_WRITE])],
      [CR, clusterRole('cm-reader', [CM_READ])],
      [CR, clusterRole('bind-cluster-admin', [{ apiGroups: [G], resources: ['clusterroles'], resourceNames: ['cluster-admin'], verbs: ['bind'] }])],
      [CR, clusterRole('escalate-clusterroles', [{ apiGroups: [G], resources: ['clusterroles'], verbs: ['escalate'] }])],
      [CRB, binding('ClusterRoleBinding', 'writer', 'ClusterRole', 'rbac-writer', 'writer')],
      [CRB, binding('ClusterRoleBinding', 'writer-cm', 'ClusterRole', 'cm-reader', 'writer')],
      [CRB, binding('ClusterRoleBinding', 'binder', 'ClusterRole', 'rbac-writer', 'binder')],
      [CRB, binding('ClusterRoleBinding', 'binder-bind', 'ClusterRole', 'bind-cluster-admin', 'binder')],
      [CRB, binding('ClusterRoleBinding', 'escalator', 'ClusterRole', 'rbac-writer', 'escalator')],
      [CRB, binding('ClusterRoleBinding', 'escalator-escalate', 'ClusterRole', 'escalate-clusterroles', 'escalator')],
    ] as const) assertCreated(await admin.request('POST', path, body));
    const can = async (c: IdentityClient, attrs: Record<string, string>): Promise<boolean> =>
      ((await c.request('POST', SSAR, { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attrs } })).json as { status?: { allowed?: boolean } } | undefined)?.status?.allowed === true;
    await waitFor(async () => (await can(writer, { verb: 'get', resource: 'configmaps' }))
      && (await can(binder, { verb: 'bind', group: G, resource: 'clusterroles', name: 'cluster-admin' }))
      && (await can(escalator, { verb: 'escalate', group: G, resource: 'clusterroles' })), 5000, { message: 'RBAC effective' });
  });
  after(async () => {
    for (const c of [admin, writer, binder, escalator]) c?.close();
    await srv?.stop();
  });

  test('should refuse binding cluster-admin to a user without its permissions', async () => {
    const r = await writer.request('POST', CRB, binding('ClusterRoleBinding', 'pwn', 'ClusterRole', 'cluster-admin', 'writer'));
    assertForbidden(r, 'clusterrolebindings.rbac.authorization.k8s.io "pwn" is forbidden: user "writer" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n');
    assert.match(r.json?.message ?? '', /\n\{APIGroups:\["\*"\], Resources:\["\*"\], Verbs:\["\*"\]\}\n\{NonResourceURLs:\["\*"\], Verbs:\["\*"\]\}$/);
    assert.equal((await admin.request('GET', `${CRB}/pwn`)).status, 404, 'nothing was stored');
    assertForbidden(await writer.request('POST', roleBindings('team'), binding('RoleBinding', 'pwn', 'ClusterRole', 'cluster-admin', 'writer', 'team')), 'rolebindings.rbac.authorization.k8s.io "pwn" is forbidden');
  });

  test('should allow binding a role whose permissions the author holds', async () => {
    assertCreated(await writer.request('POST', CRB, binding('ClusterRoleBinding', 'share-cm', 'ClusterRole', 'cm-reader', 'someone')));
    assertCreated(await writer.request('POST', roleBindings('team'), binding('RoleBinding', 'share-cm', 'ClusterRole', 'cm-reader', 'someone', 'team')));
  });

  test('should allow binding anything with the bind verb on it, and only that', async () => {
    assertCreated(await binder.request('POST', CRB, binding('ClusterRoleBinding', 'granted-admin', 'ClusterRole', 'cluster-admin', 'someone')));
    assertForbidden(await binder.request('POST', CRB, binding('ClusterRoleBinding', 'other', 'ClusterRole', 'escalate-clusterroles', 'someone')), 'clusterrolebindings.rbac.authorization.k8s.io "other" is forbidden');
  });

  test('should refuse a role granting more than the author holds, on create, update, patch and apply', async () => {
    const secrets: Rule = { apiGroups: [''], resources: ['secrets'], verbs: ['get'] };
    assertForbidden(await writer.request('POST', CR, clusterRole('wide', [secrets])),
      'clusterroles.rbac.authorization.k8s.io "wide" is forbidden: user "writer" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}');
    assertForbidden(await writer.request('POST', roles('team'), role('team', 'wide', [secrets])), 'roles.rbac.authorization.k8s.io "wide" is forbidden');
    assertCreated(await writer.request('POST', CR, clusterRole('narrow', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }])));
    const cur = (await writer.request('GET', `${CR}/narrow`)).json as Record<string, unknown>;
    assertForbidden(await writer.request('PUT', `${CR}/narrow`, { ...cur, rules: [secrets] }), 'clusterroles.rbac.authorization.k8s.io "narrow" is forbidden');
    assertForbidden(await writer.request('PATCH', `${CR}/narrow`, { rules: [CM_READ, secrets] }, 'application/merge-patch+json'), 'clusterroles.rbac.authorization.k8s.io "narrow" is forbidden');
    assertForbidden(await writer.request('PATCH', `${CR}/narrow?fieldManager=test&force=true`, { apiVersion: V, kind: 'ClusterRole', metadata: { name: 'narrow' }, rules: [secrets] }, 'application/apply-patch+yaml'),
      'clusterroles.rbac.authorization.k8s.io "narrow" is forbidden');
    assertForbidden(await writer.request('PATCH', `${CR}/applied?fieldManager=test`, { apiVersion: V, kind: 'ClusterRole', metadata: { name: 'applied' }, rules: [secrets] }, 'application/apply-patch+yaml'),
      'clusterroles.rbac.authorization.k8s.io "applied" is forbidden');
    const after = (await admin.request('GET', `${CR}/narrow`)).json as { rules: Rule[] };
    assert.deepEqual(after.rules, [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }], 'the stored role is unchanged');
    // Labels may change while the rules stay within what the author holds.
    assert.equal((await writer.request('PATCH', `${CR}/narrow`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json')).status, 200);
  });

  test('should allow any role with the escalate verb, for that resource only', async () => {
    assertCreated(await escalator.request('POST', CR, clusterRole('everything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }])));
    assertForbidden(await escalator.request('POST', roles('team'), role('team', 'wide', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }])), 'roles.rbac.authorization.k8s.io "wide" is forbidden');
    // Holding the rules of a role is not holding `bind` on it: binding "everything" is still refused.
    assertForbidden(await escalator.request('POST', CRB, binding('ClusterRoleBinding', 'everything', 'ClusterRole', 'everything', 'escalator')), 'clusterrolebindings.rbac.authorization.k8s.io "everything" is forbidden');
  });

  test('should refuse an aggregationRule from anyone without every permission', async () => {
    const agg = { ...clusterRole('agg-by-writer', []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate': 'true' } }] } };
    assertForbidden(await writer.request('POST', CR, agg), 'clusterroles.rbac.authorization.k8s.io "agg-by-writer" is forbidden: must have cluster-admin privileges to use the aggregationRule');
  });
});

describe('ClusterRole aggregation', () => {
  let srv: TestApiServer;
  let admin: IdentityClient;
  const rulesOf = async (name: string): Promise<Rule[] | undefined> => ((await admin.request('GET', `${CR}/${name}`)).json as { rules?: Rule[] }).rules;

  before(async () => {
    srv = await startTestApiServer();
    const pki = srv.server.pki;
    admin = identityClient(srv.url, pki.caPem, await pki.issueClientCertificate({ commonName: 'test-admin', organizations: ['system:masters'] }));
  });
  after(async () => {
    admin?.close();
    await srv?.stop();
  });

  test('should fill an aggregating ClusterRole with the rules of matching roles, within a second', async () => {
    const label = { 'example.com/aggregate-to-viewer': 'true' };
    assertCreated(await admin.request('POST', CR, { ...clusterRole('viewer', []), aggregationRule: { clusterRoleSelectors: [{ matchLabels: label }] } }));
    assertCreated(await admin.request('POST', CR, clusterRole('viewer-pods', [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }], label)));
    assertCreated(await admin.request('POST', CR, clusterRole('unrelated', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }])));
    await waitFor(async () => (await rulesOf('viewer'))?.length === 1, 1000, { message: 'viewer aggregated' });
    assert.deepEqual(await rulesOf('viewer'), [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]);

    assertCreated(await admin.request('POST', CR, clusterRole('a-viewer-cm', [CM_READ, { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }], label)));
    await waitFor(async () => (await rulesOf('viewer'))?.length === 2, 1000, { message: 'second role aggregated' });
    assert.deepEqual(await rulesOf('viewer'), [CM_READ, { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }], 'by role name, each rule once');

    // A label added later brings a role in; removing a role takes its rules out.
    assert.equal((await admin.request('PATCH', `${CR}/unrelated`, { metadata: { labels: label } }, 'application/merge-patch+json')).status, 200);
    await waitFor(async () => (await rulesOf('viewer'))?.length === 3, 1000, { message: 'relabelled role aggregated' });
    assert.equal((await admin.request('DELETE', `${CR}/a-viewer-cm`)).status, 200);
    await waitFor(async () => (await rulesOf('viewer'))?.length === 2, 1000, { message: 'deleted role removed' });
    assert.deepEqual(await rulesOf('viewer'), [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }, { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }], 'unrelated sorts before viewer-pods');

    // Rules written by hand into an aggregating role are replaced.
    const cur = (await admin.request('GET', `${CR}/viewer`)).json as Record<string, unknown>;
    assert.equal((await admin.request('PUT', `${CR}/viewer`, { ...cur, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] })).status, 200);
    await waitFor(async () => (await rulesOf('viewer'))?.length === 2, 1000, { message: 'hand-written rules replaced' });
  });

  test('should refuse an aggregationRule without valid selectors', async () => {
    const r = await admin.request('POST', CR, { ...clusterRole('bad-agg', []), aggregationRule: { clusterRoleSelectors: [] } });
    assert.equal(r.status, 422, r.text);
    assert.match(r.json?.message ?? '', /aggregationRule\.clusterRoleSelectors: Required value/);
  });
});
