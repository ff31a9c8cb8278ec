// Who is calling the hub's gRPC server, as OCM's server decides it: a client certificate signed by
// the gRPC client CA (user = CN, groups = O) or a bearer token the hub's API server vouches for
// with a TokenReview. A call with neither, or with a bad certificate or token, is unauthenticated.

import type { PeerCertificate } from 'node:tls';
import type { KubeClient } from '../../client/types.js';
import { errorMessage } from '../../util/errors.js';
import { parseCertificate, trustAnchorFromPem, type TrustAnchor } from '../../util/x509.js';
import type { GrpcUser } from './authz.js';

const CLIENT_AUTH_OID = '1.3.6.1.5.5.7.3.2';
const ANY_EKU_OID = '2.5.29.37.0';

export class GrpcAuthnError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GrpcAuthnError';
  }
}

export interface Authenticator {
  authenticate(peer: PeerCertificate | undefined, authorization: string | undefined, signal?: AbortSignal): Promise<GrpcUser>;
}

/** The identity in a client certificate chained to one of `anchors` and valid at `now`; undefined otherwise. */
function userFromCertificate(der: Buffer, anchors: readonly TrustAnchor[], now: Date): GrpcUser | undefined {
  let cert;
  try {
    cert = parseCertificate(der);
  } catch {
    return undefined;
  }
  if (now < cert.notBefore || now > cert.notAfter) return undefined;
  if (cert.extKeyUsageOids && !cert.extKeyUsageOids.some((o) => o === CLIENT_AUTH_OID || o === ANY_EKU_OID)) return undefined;
  if (!anchors.some((a) => a.issued(cert.der))) return undefined;
  if (cert.commonName === '') return undefined;
  return { name: cert.commonName, groups: cert.organizations };
}

interface TokenReviewStatus {
  status?: { authenticated?: boolean; user?: { username?: string; groups?: string[] }; error?: string };
}

export function createAuthenticator(o: { clientCaPem: string; client: KubeClient; now?: () => Date }): Authenticator {
  const anchors = trustAnchorFromPem(o.clientCaPem);
  const now = o.now ?? (() => new Date());
  return {
    async authenticate(peer, authorization, signal) {
      const raw = peer?.raw;
      if (raw !== undefined && raw.length > 0) {
        const user = userFromCertificate(raw, anchors, now());
        if (user) return user;
      }
      if (authorization !== undefined && /^bearer\s+\S/i.test(authorization)) {
        const token = authorization.replace(/^bearer\s+/i, '').trim();
        let review: TokenReviewStatus;
        try {
          review = await o.client.request<TokenReviewStatus>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
            apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token },
          }, { ...(signal ? { signal } : {}) });
        } catch (err) {
          throw new GrpcAuthnError(`token review failed: ${errorMessage(err)}`);
        }
        const u = review.status?.user;
        if (review.status?.authenticated === true && u?.username) return { name: u.username, groups: u.groups ?? [] };
        throw new GrpcAuthnError('token not authenticated');
      }
      throw new GrpcAuthnError(raw !== undefined && raw.length > 0 ? 'could not verify peer certificate' : 'no client certificate or bearer token');
    },
  };
}
