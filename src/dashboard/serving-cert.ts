// A serving certificate for the dashboard when the hub has none to lend (controllers-only mode): a
// CA and a certificate for the listen host made in memory at start. Browsers will ask the user to
// trust it; an embedded hub serves the dashboard with its API server's certificate instead.

import { isIP } from 'node:net';
import { createSelfSignedCa, generateKeyPair, issueCertificate } from '../util/x509.js';

export async function makeServingPair(host: string, now: number): Promise<{ certPem: string; keyPem: string; caPem: string }> {
  const notBefore = new Date(now - 5 * 60_000);
  const notAfter = new Date(now + 365 * 24 * 3600_000);
  const ca = await createSelfSignedCa({ commonName: `ocm-ts-dashboard-signer@${Math.floor(now / 1000)}`, notBefore, notAfter });
  const key = await generateKeyPair('ecdsa-p256');
  const hosts = [...new Set(['localhost', '127.0.0.1', '::1', host])].filter((h) => h !== '' && h !== '0.0.0.0' && h !== '::');
  const certPem = await issueCertificate({
    ca,
    subject: { commonName: 'ocm-ts-dashboard' },
    publicKey: key.publicKeyPem,
    notBefore,
    notAfter,
    keyUsages: ['digitalSignature', 'keyEncipherment'],
    extKeyUsages: ['serverAuth'],
    dnsNames: hosts.filter((h) => isIP(h) === 0),
    ipAddresses: hosts.filter((h) => isIP(h) !== 0),
  });
  return { certPem, keyPem: key.privateKeyPem, caPem: ca.certPem };
}
