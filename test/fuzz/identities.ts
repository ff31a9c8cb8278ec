// The identities the fuzz suite sends requests as: how each one authenticates (client certificate,
// bearer token, nothing, or a forged certificate) and the user the server must see for it, which
// the rights check hands to SubjectAccessReviews.

import { Agent } from 'node:https';
import type { Pki } from '../../src/apiserver/pki/index.js';
import { generateKeyPair, issueCertificate } from '../../src/util/x509.js';

export const IDENTITY_NAMES = ['admin', 'bootstrap', 'agent', 'hub-controller', 'user', 'anonymous', 'forged-cert'] as const;
export type IdentityName = (typeof IDENTITY_NAMES)[number];

export interface UserRef {
  username: string;
  groups: string[];
}

export interface Identity {
  name: IdentityName;
  /** Keep-alive connections with this identity's TLS client credentials. */
  agent: Agent;
  /** TLS material, for raw connections. */
  tls: { ca: string; cert?: string; key?: string };
  /** Headers every request of this identity carries (the bootstrap token). */
  headers: Record<string, string>;
  /** The user the server acts for (the anonymous user when the credentials must be refused). */
  user: UserRef;
  /** In system:masters: may change anything, so its writes need no rights check. */
  superuser: boolean;
}

export const CLUSTER = 'cluster1';
export const AGENT_USER = `system:open-cluster-management:${CLUSTER}:agent1`;
export const AGENT_GROUPS = [`system:open-cluster-management:${CLUSTER}`, 'system:open-cluster-management:managed-clusters'];
const AUTHENTICATED = 'system:authenticated';
const ANONYMOUS: UserRef = { username: 'system:anonymous', groups: ['system:unauthenticated'] };

function identity(name: IdentityName, tls: Identity['tls'], user: UserRef, extra: { headers?: Record<string, string>; superuser?: boolean } = {}): Identity {
  return {
    name,
    // Few sockets: requests are sequential, and a fresh TLS handshake per request would dominate.
    agent: new Agent({ keepAlive: true, maxSockets: 4, ...tls }),
    tls,
    headers: extra.headers ?? {},
    user,
    superuser: extra.superuser ?? false,
  };
}

async function certIdentity(pki: Pki, name: IdentityName, cn: string, orgs: string[], superuser = false): Promise<Identity> {
  const cert = await pki.issueClientCertificate({ commonName: cn, organizations: orgs });
  return identity(name, { ca: pki.caPem, cert: cert.certPem, key: cert.keyPem }, { username: cn, groups: [...orgs, AUTHENTICATED] }, { superuser });
}

/** A certificate naming the real CA as its issuer, signed by another key: must be refused with 401. */
async function forgedIdentity(pki: Pki): Promise<Identity> {
  const otherCaKey = await generateKeyPair();
  const leafKey = await generateKeyPair();
  const now = Date.now();
  const certPem = await issueCertificate({
    ca: { certPem: pki.caPem, keyPem: otherCaKey.privateKeyPem },
    subject: { commonName: 'fuzz-forger', organizations: ['system:masters'] },
    publicKey: leafKey.publicKeyPem,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 24 * 3600_000),
    keyUsages: ['digitalSignature'],
    extKeyUsages: ['clientAuth'],
  });
  return identity('forged-cert', { ca: pki.caPem, cert: certPem, key: leafKey.privateKeyPem }, ANONYMOUS);
}

export interface IdentityInputs {
  pki: Pki;
  /** `<id>.<secret>` of the OCM bootstrap token. */
  bootstrapToken: string;
  hubControllerUser: string;
}

export async function createIdentities(o: IdentityInputs): Promise<Record<IdentityName, Identity>> {
  const tokenId = o.bootstrapToken.split('.')[0] ?? '';
  return {
    admin: await certIdentity(o.pki, 'admin', 'fuzz-admin', ['system:masters'], true),
    bootstrap: identity('bootstrap', { ca: o.pki.caPem }, {
      username: `system:bootstrap:${tokenId}`,
      groups: ['system:bootstrappers', 'system:bootstrappers:managedcluster', AUTHENTICATED],
    }, { headers: { authorization: `Bearer ${o.bootstrapToken}` } }),
    agent: await certIdentity(o.pki, 'agent', AGENT_USER, AGENT_GROUPS),
    'hub-controller': await certIdentity(o.pki, 'hub-controller', o.hubControllerUser, []),
    user: await certIdentity(o.pki, 'user', 'fuzz-user', ['fuzz-team']),
    anonymous: identity('anonymous', { ca: o.pki.caPem }, ANONYMOUS),
    'forged-cert': await forgedIdentity(o.pki),
  };
}
