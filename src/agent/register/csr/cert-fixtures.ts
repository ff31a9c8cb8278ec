// Certificate builders for the register/CSR unit tests: a throwaway CA and client certificates with
// chosen subjects and validity windows.

import { createPublicKey } from 'node:crypto';
import { createSelfSignedCa, generateKeyPair, issueCertificate, toEcPrivateKeyPem, type SigningCa } from '../../../util/x509.js';

export interface TestCert {
  certPem: string;
  /** SEC1 PEM. */
  keyPem: string;
}

export async function testCa(): Promise<SigningCa> {
  const now = Date.now();
  return createSelfSignedCa({ commonName: 'test-ca', notBefore: new Date(now - 3_600_000), notAfter: new Date(now + 10 * 3_600_000) });
}

export async function testClientCert(
  ca: SigningCa,
  o: { commonName: string; organizations?: string[]; organizationalUnits?: string[]; notBefore: Date; notAfter: Date },
): Promise<TestCert> {
  const keyPem = toEcPrivateKeyPem((await generateKeyPair('ecdsa-p256')).privateKeyPem);
  const publicKey = createPublicKey(keyPem).export({ type: 'spki', format: 'pem' }).toString();
  const certPem = await issueCertificate({
    ca,
    subject: { commonName: o.commonName, organizations: o.organizations ?? [], organizationalUnits: o.organizationalUnits ?? [] },
    publicKey,
    notBefore: o.notBefore,
    notAfter: o.notAfter,
    keyUsages: ['digitalSignature', 'keyEncipherment'],
    extKeyUsages: ['clientAuth'],
  });
  return { certPem, keyPem };
}

export const AGENT_ORGS = ['system:open-cluster-management:cluster1', 'system:open-cluster-management:managed-clusters'];
export const AGENT_CN = 'system:open-cluster-management:cluster1:agent1';
