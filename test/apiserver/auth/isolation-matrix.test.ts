// Isolation matrix on a hub with two accepted clusters (A, B) and the OCM RBAC of
// hub-controller.md §4: for each identity and each operation the OCM system performs on the hub,
// the real request is allowed exactly when the RBAC grants it, and SubjectAccessReview /
// SelfSubjectAccessReview answer the same.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLUSTER_A, CLUSTER_B, startAuthHub, type AuthHub, type IdentityName } from './auth-hub.js';
import type { IdentityClient, IdentityResponse } from './identity-client.js';

interface ResourceAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string;
  namespace?: string;
  name?: string;
}

interface Op {
  key: string;
  attrs: ResourceAttributes;
  /** Undefined: a virtual permission (renew) checked only through reviews. */
  run?: (c: IdentityClient, hub: AuthHub, who: IdentityName) => Promise<IdentityResponse>;
}

const MC = '/apis/cluster.open-cluster-management.io/v1/managedclusters';
const merge = 'application/merge-patch+json';

async function adminGet(hub: AuthHub, path: string): Promise<Record<string, unknown>> {
  const r = await hub.admin.request('GET', path);
  assert.equal(r.status, 200, r.text);
  return r.json as Record<string, unknown>;
}

function clusterOps(c: string, tag: 'A' | 'B'): Op[] {
  return [
    { key: `mc.get@${tag}`, attrs: { verb: 'get', group: 'cluster.open-cluster-management.io', resource: 'managedclusters', name: c }, run: (cl) => cl.request('GET', `${MC}/${c}`) },
    {
      key: `mc.update@${tag}`,
      attrs: { verb: 'update', group: 'cluster.open-cluster-management.io', resource: 'managedclusters', name: c },
      run: async (cl, hub) => cl.request('PUT', `${MC}/${c}`, await adminGet(hub, `${MC}/${c}`)),
    },
    {
      key: `mc.status@${tag}`,
      attrs: { verb: 'patch', group: 'cluster.open-cluster-management.io', resource: 'managedclusters', subresource: 'status', name: c },
      run: (cl) => cl.request('PATCH', `${MC}/${c}/status`, { status: { version: { kubernetes: 'v1.30.0' } } }, merge),
    },
    {
      key: `lease.update@${tag}`,
      attrs: { verb: 'update', group: 'coordination.k8s.io', resource: 'leases', namespace: c, name: 'managed-cluster-lease' },
      run: async (cl, hub) => {
        const path = `/apis/coordination.k8s.io/v1/namespaces/${c}/leases/managed-cluster-lease`;
        const lease = await adminGet(hub, path);
        lease.spec = { renewTime: new Date().toISOString().replace('Z', '000Z') };
        return cl.request('PUT', path, lease);
      },
    },
    {
      key: `addon.status@${tag}`,
      attrs: { verb: 'patch', group: 'addon.open-cluster-management.io', resource: 'managedclusteraddons', subresource: 'status', namespace: c, name: 'addon1' },
      run: (cl) => cl.request('PATCH', `/apis/addon.open-cluster-management.io/v1alpha1/namespaces/${c}/managedclusteraddons/addon1/status`, { status: { namespace: 'open-cluster-management-agent-addon' } }, merge),
    },
    {
      key: `event.create@${tag}`,
      attrs: { verb: 'create', group: 'events.k8s.io', resource: 'events', namespace: c },
      run: (cl) =>
        cl.request('POST', `/apis/events.k8s.io/v1/namespaces/${c}/events`, {
          apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { generateName: 'test-', namespace: c },
          eventTime: '2026-12-02T12:00:00.000000Z', reportingController: 'test', reportingInstance: 'test-1', action: 'Test', reason: 'Test', type: 'Normal',
          regarding: { kind: 'ManagedCluster', name: c, apiVersion: 'cluster.open-cluster-management.io/v1' }, note: 'n',
        }),
    },
    { key: `secret.get@${tag}`, attrs: { verb: 'get', group: '', resource: 'secrets', namespace: c, name: 'hub-secret' }, run: (cl) => cl.request('GET', `/api/v1/namespaces/${c}/secrets/hub-secret`) },
  ];
}

const ops: Op[] = [
  ...clusterOps(CLUSTER_A, 'A'),
  ...clusterOps(CLUSTER_B, 'B'),
  {
    key: 'csr.create',
    attrs: { verb: 'create', group: 'certificates.k8s.io', resource: 'certificatesigningrequests' },
    run: async (cl, hub) =>
      cl.request('POST', '/apis/certificates.k8s.io/v1/certificatesigningrequests', {
        apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { generateName: 'matrix-' },
        spec: { request: await hub.csrRequest('system:open-cluster-management:x:y', ['system:open-cluster-management:x']), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'key encipherment', 'client auth'] },
      }),
  },
  { key: 'csr.list', attrs: { verb: 'list', group: 'certificates.k8s.io', resource: 'certificatesigningrequests' }, run: (cl) => cl.request('GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests') },
  { key: 'renew', attrs: { verb: 'renew', group: 'register.open-cluster-management.io', resource: 'managedclusters', subresource: 'clientcertificates' } },
  { key: 'ns.list', attrs: { verb: 'list', group: '', resource: 'namespaces' }, run: (cl) => cl.request('GET', '/api/v1/namespaces') },
  {
    key: 'mc.create',
    attrs: { verb: 'create', group: 'cluster.open-cluster-management.io', resource: 'managedclusters' },
    run: (cl, _hub, who) => cl.request('POST', MC, { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: `new-${who.toLowerCase()}` }, spec: { hubAcceptsClient: false } }),
  },
  {
    key: 'bootstrapSecret.get',
    attrs: { verb: 'get', group: '', resource: 'secrets', namespace: 'kube-system', name: 'bootstrap-token-abcdef' },
    run: (cl) => cl.request('GET', '/api/v1/namespaces/kube-system/secrets/bootstrap-token-abcdef'),
  },
];

const agentGrants = (t: 'A' | 'B'): string[] => [`mc.get@${t}`, `mc.update@${t}`, `mc.status@${t}`, `lease.update@${t}`, `addon.status@${t}`, `event.create@${t}`, 'csr.create', 'csr.list', 'renew'];
const expected: Record<IdentityName, 'all' | 'unauthorized' | string[]> = {
  agentA: agentGrants('A'),
  agentB: agentGrants('B'),
  bootstrap: ['mc.get@A', 'mc.get@B', 'csr.create', 'csr.list', 'mc.create'],
  expiredBootstrap: 'unauthorized',
  anonymous: [],
  admin: 'all',
};

const allowedFor = (who: IdentityName, key: string): boolean => {
  const e = expected[who];
  return e === 'all' || (Array.isArray(e) && e.includes(key));
};

let hub: AuthHub;
before(async () => {
  hub = await startAuthHub();
});
after(async () => {
  await hub?.stop();
});

for (const who of Object.keys(expected) as IdentityName[]) {
  test(`requests as ${who} succeed exactly where the OCM RBAC grants them`, async () => {
    const problems: string[] = [];
    for (const op of ops) {
      if (!op.run) continue;
      const r = await op.run(hub.clients[who], hub, who);
      if (expected[who] === 'unauthorized') {
        if (r.status !== 401 || r.json?.reason !== 'Unauthorized') problems.push(`${op.key}: want 401, got ${r.status}`);
      } else if (allowedFor(who, op.key)) {
        if (r.status < 200 || r.status > 299) problems.push(`${op.key}: want 2xx, got ${r.status} ${r.text.slice(0, 200)}`);
      } else {
        const user = hub.users[who]!.username;
        if (r.status !== 403) problems.push(`${op.key}: want 403, got ${r.status} ${r.text.slice(0, 200)}`);
        else if (!r.json?.message?.includes(`User "${user}" cannot ${op.attrs.verb} resource`)) problems.push(`${op.key}: unexpected message ${r.json?.message}`);
      }
    }
    assert.deepEqual(problems, []);
  });
}

test('SubjectAccessReview and SelfSubjectAccessReview agree with the matrix', async () => {
  const problems: string[] = [];
  for (const who of Object.keys(expected) as IdentityName[]) {
    const user = hub.users[who];
    if (!user) continue;
    for (const op of ops) {
      const want = allowedFor(who, op.key);
      const sar = await hub.admin.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: user.username, groups: user.groups, resourceAttributes: op.attrs },
      });
      if (sar.status !== 201) problems.push(`${who} ${op.key}: SAR status ${sar.status} ${sar.text}`);
      else if ((sar.json?.status as { allowed: boolean }).allowed !== want) problems.push(`${who} ${op.key}: SAR allowed=${String(!want)}`);
      const ssar = await hub.clients[who].request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
        apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: op.attrs },
      });
      if (who === 'anonymous') {
        if (ssar.status !== 403) problems.push(`anonymous SSAR: want 403, got ${ssar.status}`);
      } else if (ssar.status !== 201) problems.push(`${who} ${op.key}: SSAR status ${ssar.status}`);
      else if ((ssar.json?.status as { allowed: boolean }).allowed !== want) problems.push(`${who} ${op.key}: SSAR allowed=${String(!want)}`);
    }
  }
  const expiredSsar = await hub.clients.expiredBootstrap.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
  });
  assert.equal(expiredSsar.status, 401);
  assert.deepEqual(problems, []);
});

test('SAR explains an allow and validates its input', async () => {
  const sar = await hub.admin.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview',
    spec: { user: hub.users.agentA!.username, groups: hub.users.agentA!.groups, resourceAttributes: { verb: 'renew', group: 'register.open-cluster-management.io', resource: 'managedclusters', subresource: 'clientcertificates' } },
  });
  assert.equal(sar.status, 201);
  assert.deepEqual(sar.json?.status, {
    allowed: true,
    reason: `RBAC: allowed by ClusterRoleBinding "open-cluster-management:managedcluster:${CLUSTER_A}" of ClusterRole "open-cluster-management:managedcluster:${CLUSTER_A}" to Group "system:open-cluster-management:${CLUSTER_A}"`,
  });
  const bad = await hub.admin.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { resourceAttributes: { verb: 'get', resource: 'pods' } },
  });
  assert.equal(bad.status, 422);
  // Agents may not run SubjectAccessReviews for others.
  const notAllowed = await hub.clients.agentA.request('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'x', resourceAttributes: { verb: 'get', resource: 'pods' } },
  });
  assert.equal(notAllowed.status, 403);
});

test('SelfSubjectRulesReview lists the agent\'s rules in its namespace', async () => {
  const r = await hub.clients.agentA.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: CLUSTER_A },
  });
  assert.equal(r.status, 201, r.text);
  const rules = (r.json?.status as { resourceRules: Array<{ resources: string[]; verbs: string[] }> }).resourceRules;
  assert.ok(rules.some((x) => x.resources.includes('leases') && x.verbs.includes('update')));
  assert.ok(rules.some((x) => x.resources.includes('managedclusters/status')));
  const other = await hub.clients.agentA.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', {
    apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: CLUSTER_B },
  });
  const otherRules = (other.json?.status as { resourceRules: Array<{ resources: string[] }> }).resourceRules;
  assert.ok(!otherRules.some((x) => x.resources.includes('leases')));
});
