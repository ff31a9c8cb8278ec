import 'reflect-metadata';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { triageClusterCsrs } from './accept.js';
import type { CertificateSigningRequest } from '../api/core.js';
import { createCsr, generateKeyPair } from '../util/x509.js';

const L = 'open-cluster-management.io/cluster-name';
const P = 'system:open-cluster-management:';
const BOOTSTRAP = { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:managedcluster'] };
let key = '';
before(async () => {
  key = (await generateKeyPair('ecdsa-p256')).privateKeyPem;
});

async function csr(
  name: string,
  p: { labels?: Record<string, string>; cn?: string; orgs?: string[]; conds?: { type: string; status: 'True' | 'False' }[]; signer?: string; requester?: { username: string; groups?: string[] } } = {},
): Promise<CertificateSigningRequest> {
  const pem = await createCsr({ commonName: p.cn ?? `${P}c1:agent1`, organizations: p.orgs ?? [`${P}c1`, `${P}managed-clusters`], privateKeyPem: key });
  return {
    metadata: { name, labels: p.labels ?? { [L]: 'c1' } },
    spec: {
      request: Buffer.from(pem).toString('base64'),
      signerName: p.signer ?? 'kubernetes.io/kube-apiserver-client',
      usages: ['digital signature', 'key encipherment', 'client auth'],
      ...(p.requester ?? BOOTSTRAP),
    },
    status: { conditions: p.conds ?? [] },
  };
}

const cases: { name: string; input: () => Promise<CertificateSigningRequest>; bootstrapUsers?: string[]; approve: string[]; refuse: RegExp[] }[] = [
  { name: 'a pending agent CSR of the cluster', input: () => csr('a'), approve: ['a'], refuse: [] },
  { name: 'a renewal by the cluster\'s own agent', input: () => csr('a', { requester: { username: `${P}c1:agent1` } }), approve: ['a'], refuse: [] },
  { name: 'other cluster ignored', input: () => csr('a', { labels: { [L]: 'c2' } }), approve: [], refuse: [] },
  { name: 'approved ignored', input: () => csr('a', { conds: [{ type: 'Approved', status: 'True' }] }), approve: [], refuse: [] },
  { name: 'denied ignored', input: () => csr('a', { conds: [{ type: 'Denied', status: 'True' }] }), approve: [], refuse: [] },
  { name: "the hub controller's identity refused", input: () => csr('a', { cn: 'ocm-ts:hub-controller' }), approve: [], refuse: [/^a: common name ocm-ts:hub-controller is not system:open-cluster-management:c1:<agent>$/] },
  { name: "another cluster's agent identity refused", input: () => csr('a', { cn: `${P}c2:x`, orgs: [`${P}c2`] }), approve: [], refuse: [/^a: common name system:open-cluster-management:c2:x is not/] },
  { name: 'system:masters refused', input: () => csr('a', { orgs: [`${P}c1`, 'system:masters'] }), approve: [], refuse: [/system:masters/] },
  { name: 'addon CSR refused as not the cluster\'s', input: () => csr('a', { labels: { [L]: 'c1', 'open-cluster-management.io/addon-name': 'x' } }), approve: [], refuse: [/add-on's CSR/] },
  { name: 'other signer refused', input: () => csr('a', { signer: 'example.com/x' }), approve: [], refuse: [/signer example.com\/x/] },
  { name: 'an ordinary requester refused with a hint', input: () => csr('a', { requester: { username: 'alice' } }), approve: [], refuse: [/requester alice .* \(see --bootstrap-users\)$/] },
  { name: 'a listed bootstrap user approved', input: () => csr('a', { requester: { username: 'system:serviceaccount:ocm:bootstrap' } }), bootstrapUsers: ['system:serviceaccount:ocm:bootstrap'], approve: ['a'], refuse: [] },
];
for (const c of cases) {
  test(`triageClusterCsrs: ${c.name}`, async () => {
    const t = triageClusterCsrs([await c.input()], 'c1', c.bootstrapUsers);
    assert.deepEqual(t.approve.map((x) => x.metadata.name), c.approve);
    assert.equal(t.refuse.length, c.refuse.length);
    t.refuse.forEach((r, i) => assert.match(`${r.name}: ${r.reason}`, c.refuse[i]!));
  });
}
