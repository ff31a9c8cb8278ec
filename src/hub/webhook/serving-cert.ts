// A serving certificate for the webhook when none is given: a fresh CA and a leaf signed by it,
// valid for the listen host (every local name when it listens on all interfaces) and any extra
// names. The CA goes in the webhook configurations' caBundle.

import { isIP } from 'node:net';
import { hostname } from 'node:os';
import type { Clock } from '../../util/clock.js';
import { createSelfSignedCa, generateKeyPair, issueCertificate } from '../../util/x509.js';

const DAY_MS = 24 * 3600 * 1000;
// Clocks of the caller and the webhook may disagree a little.
const BACKDATE_MS = 5 * 60 * 1000;

export interface ServingCertificate {
  certPem: string;
  keyPem: string;
  caPem: string;
  /** The names and addresses the certificate is valid for. */
  sans: string[];
}

/** The names a client may use to reach `host`: itself, or every local name for a wildcard address. */
export function servingNames(host: string, extra: readonly string[] = []): string[] {
  const wildcard = host === '' || host === '0.0.0.0' || host === '::';
  const own = wildcard ? ['localhost', hostname(), '127.0.0.1', '::1'] : [host];
  return [...new Set([...own, ...extra].filter((n) => n !== ''))];
}

export async function generateServingCertificate(opts: { sans: string[]; clock: Clock; validityMs?: number }): Promise<ServingCertificate> {
  const now = opts.clock.now();
  const notBefore = new Date(now - BACKDATE_MS);
  const notAfter = new Date(now + (opts.validityMs ?? 365 * DAY_MS));
  const ca = await createSelfSignedCa({ commonName: `ocm-ts-webhook-ca@${Math.floor(now / 1000)}`, notBefore, notAfter });
  const key = await generateKeyPair('ecdsa-p256');
  const certPem = await issueCertificate({
    ca: { certPem: ca.certPem, keyPem: ca.keyPem },
    subject: { commonName: 'ocm-ts-webhook' },
    publicKey: key.publicKeyPem,
    notBefore,
    notAfter,
    keyUsages: ['digitalSignature'],
    extKeyUsages: ['serverAuth'],
    dnsNames: opts.sans.filter((s) => isIP(s) === 0),
    ipAddresses: opts.sans.filter((s) => isIP(s) !== 0),
  });
  return { certPem, keyPem: key.privateKeyPem, caPem: ca.certPem, sans: opts.sans };
}
