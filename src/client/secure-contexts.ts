// TLS contexts shared by every client of one process that holds the same material (CA, certificate,
// key), as client-go shares TLS transports between equal TLS configs. Building a context parses the
// CA and the key and checks the key against the certificate: about a millisecond and a half of CPU,
// which a process running many agents (`ocm-ts fleet`) paid per agent for the bootstrap kubeconfig
// they all hold. A context stays shared while some client holds it: the table keeps it weakly and
// forgets it once it has been collected. Keys are digests of the material, never the material.

import { createHash } from 'node:crypto';
import { createSecureContext, type SecureContext } from 'node:tls';

export interface TlsMaterial {
  caPem?: string | undefined;
  certPem?: string | undefined;
  keyPem?: string | undefined;
}

const contexts = new Map<string, WeakRef<SecureContext>>();
const forget = new FinalizationRegistry<string>((id) => {
  if (contexts.get(id)?.deref() === undefined) contexts.delete(id);
});

function materialId(m: TlsMaterial): string {
  const h = createHash('sha256');
  for (const part of [m.caPem, m.certPem, m.keyPem]) {
    // A length prefix keeps (a, bc) and (ab, c) apart; -1 marks an absent part.
    h.update(`${part === undefined ? -1 : part.length}:`);
    if (part !== undefined) h.update(part);
  }
  return h.digest('base64');
}

/** The context of this material, shared with any other holder; throws as createSecureContext does. */
export function sharedSecureContext(m: TlsMaterial): SecureContext {
  const id = materialId(m);
  const known = contexts.get(id)?.deref();
  if (known !== undefined) return known;
  const context = createSecureContext({
    ...(m.caPem ? { ca: m.caPem } : {}),
    ...(m.certPem ? { cert: m.certPem } : {}),
    ...(m.keyPem ? { key: m.keyPem } : {}),
  });
  contexts.set(id, new WeakRef(context));
  forget.register(context, id);
  return context;
}
