// x509 client-certificate authentication, as kube-apiserver's --client-ca-file: the leaf must be
// signed by the client CA, within its validity period, and allow clientAuth when it has an EKU
// extension. User = subject CN, groups = subject O values in order.
//
// Verification results are cached per certificate (by SHA-256 of the DER) in a bounded map owned
// by the authenticator instance; validity is re-checked against the clock on every request.

import { createHash, X509Certificate } from 'node:crypto';
import type { UserInfo } from '../pipeline.js';
import { readCertificateInfo } from '../../util/native-cert.js';
import { EKU_OID_ANY, EKU_OID_CLIENT_AUTH, trustAnchorFromPem, type TrustAnchor } from '../../util/x509.js';

type X509Result = { ok: true; user: UserInfo } | { ok: false; why: string };

interface CacheEntry {
  /** undefined when the certificate can never authenticate (bad signature, no CN, wrong EKU). */
  user?: UserInfo;
  why: string;
  notBefore: number;
  notAfter: number;
}

export interface X509AuthenticatorOptions {
  clientCaPem: string;
  now: () => number;
  /** Most certificates remembered. Default 10,000. */
  cacheSize?: number;
}

export interface X509Authenticator {
  authenticate(der: Buffer): X509Result;
}

/** Pure part: what a (chain-checked or not) certificate says about its holder. */
function evaluateCertificate(der: Buffer, anchors: readonly TrustAnchor[]): CacheEntry {
  let cert;
  let native;
  try {
    // Parsed once for both reading and the chain check: each parse costs about a third of a millisecond,
    // and a restarted hub meets every cluster's certificate again within seconds.
    native = new X509Certificate(der);
    cert = readCertificateInfo(der, native);
  } catch {
    return { why: 'malformed certificate', notBefore: 0, notAfter: 0 };
  }
  const base = { notBefore: cert.notBefore.getTime(), notAfter: cert.notAfter.getTime() };
  if (!anchors.some((a) => a.issued(native))) return { ...base, why: 'certificate signed by unknown authority' };
  if (cert.extKeyUsageOids && !cert.extKeyUsageOids.some((o) => o === EKU_OID_CLIENT_AUTH || o === EKU_OID_ANY)) {
    return { ...base, why: 'certificate specifies an incompatible key usage' };
  }
  if (!cert.commonName) return { ...base, why: 'certificate has an empty common name' };
  const fingerprint = createHash('sha256').update(der).digest('hex');
  return {
    ...base,
    why: '',
    user: {
      username: cert.commonName,
      groups: [...cert.organizations],
      extra: { 'authentication.kubernetes.io/credential-id': [`X509SHA256=${fingerprint}`] },
    },
  };
}

export function createX509Authenticator(opts: X509AuthenticatorOptions): X509Authenticator {
  const anchors = trustAnchorFromPem(opts.clientCaPem);
  const limit = opts.cacheSize ?? 10_000;
  const cache = new Map<string, CacheEntry>();
  // The server hands over the same Buffer for every request of a connection (the peer certificate
  // is read once per connection): its digest is taken once too, not per request.
  const ids = new WeakMap<Buffer, string>();
  return {
    authenticate(der: Buffer): X509Result {
      let id = ids.get(der);
      if (id === undefined) {
        id = createHash('sha256').update(der).digest('base64');
        ids.set(der, id);
      }
      let entry = cache.get(id);
      if (!entry) {
        entry = evaluateCertificate(der, anchors);
        if (cache.size >= limit) {
          const oldest = cache.keys().next();
          if (!oldest.done) cache.delete(oldest.value);
        }
        cache.set(id, entry);
      }
      if (!entry.user) return { ok: false, why: entry.why };
      const now = opts.now();
      if (now < entry.notBefore) return { ok: false, why: 'certificate is not yet valid' };
      if (now > entry.notAfter) return { ok: false, why: 'certificate has expired' };
      const u = entry.user;
      return { ok: true, user: { username: u.username, groups: [...u.groups], ...(u.extra ? { extra: { ...u.extra } } : {}) } };
    },
  };
}
