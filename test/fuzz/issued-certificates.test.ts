// The fuzz suite's certificate oracle: which issued certificates it refuses.

import { it } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeObject } from '../../src/api/meta.js';
import { createSelfSignedCa, generateKeyPair, issueCertificate } from '../../src/util/x509.js';
import { certificateProblems, issuedCertificateViolations } from './issued-certificates.js';

const LABEL = { 'open-cluster-management.io/cluster-name': 'c1' };
const AGENT = 'system:open-cluster-management:c1:a1';
const AGENT_GROUPS = ['system:open-cluster-management:c1', 'system:open-cluster-management:managed-clusters'];

it('refuses internal identities, system:masters, and other subjects on a labelled CSR', () => {
  const cases: { cn: string; orgs: string[]; labels: Record<string, string>; bad: boolean }[] = [
    { cn: AGENT, orgs: AGENT_GROUPS, labels: LABEL, bad: false },
    { cn: 'alice', orgs: ['team'], labels: {}, bad: false },
    { cn: 'ocm-ts:hub-controller', orgs: [], labels: {}, bad: true },
    { cn: 'alice', orgs: ['system:masters'], labels: {}, bad: true },
    { cn: 'system:open-cluster-management:c2:a1', orgs: ['system:open-cluster-management:c2'], labels: LABEL, bad: true },
    { cn: `${AGENT}:extra`, orgs: AGENT_GROUPS, labels: LABEL, bad: true },
    { cn: AGENT, orgs: [...AGENT_GROUPS, 'system:open-cluster-management:c2'], labels: LABEL, bad: true },
    { cn: 'alice', orgs: [], labels: LABEL, bad: true },
  ];
  for (const c of cases) assert.equal(certificateProblems(c.cn, c.orgs, c.labels).length > 0, c.bad, `${c.cn} ${c.orgs.join(',')}`);
});

it('finds a forbidden certificate in a CSR status written to the store', async () => {
  const now = Date.now();
  const ca = await createSelfSignedCa({ commonName: 'ca', notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000) });
  const key = await generateKeyPair();
  const pem = await issueCertificate({
    ca, subject: { commonName: 'root', organizations: ['system:masters'] }, publicKey: key.publicKeyPem,
    notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000), keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'],
  });
  const csr = (certificate?: string): KubeObject => ({ apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest', metadata: { name: 'x' }, ...(certificate ? { status: { certificate } } : {}) }) as KubeObject;
  const key0 = '/certificates.k8s.io/certificatesigningrequests//x';
  const issued = { type: 'MODIFIED' as const, key: key0, revision: 2, object: csr(Buffer.from(pem).toString('base64')), prevObject: csr() };
  assert.deepEqual(issuedCertificateViolations([issued]).map((v) => v.kind), ['forbidden-certificate-issued']);
  assert.deepEqual(issuedCertificateViolations([{ ...issued, prevObject: issued.object }]), [], 'only a newly issued certificate counts');
});
