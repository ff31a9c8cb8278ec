// Decodes a CertificateSigningRequest's `spec.request` into the subject an issued certificate would
// carry. Pure and synchronous; never throws: anything that is not exactly one well-formed, correctly
// self-signed PEM `CERTIFICATE REQUEST` comes back as a reason.

import { parseCsr, splitPemBlocks, type ParsedCsr } from '../util/x509.js';

export interface CsrSubject {
  /**
   * Every CN attribute, in order. Authenticators disagree on which CN wins when there are several
   * (Go's x509 keeps the last, ours the first), so callers that care about identity insist on one.
   */
  commonNames: string[];
  organizations: string[];
  parsed: ParsedCsr;
}

export type DecodedCsrRequest = { ok: true; subject: CsrSubject } | { ok: false; reason: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeCsrRequest(request: unknown): DecodedCsrRequest {
  if (typeof request !== 'string' || request === '') return { ok: false, reason: 'spec.request is empty' };
  if (!BASE64.test(request.replace(/\s+/g, ''))) return { ok: false, reason: 'spec.request is not base64' };
  const pem = Buffer.from(request, 'base64').toString('utf8');
  const blocks = splitPemBlocks(pem);
  if (blocks.length !== 1 || blocks[0]!.type !== 'CERTIFICATE REQUEST') {
    return { ok: false, reason: 'spec.request is not exactly one PEM CERTIFICATE REQUEST block' };
  }
  let parsed: ParsedCsr;
  try {
    parsed = parseCsr(pem);
  } catch (err) {
    return { ok: false, reason: `spec.request does not parse: ${(err as Error).message}` };
  }
  if (!parsed.signatureValid) return { ok: false, reason: 'spec.request: signature verification failure' };
  return { ok: true, subject: { commonNames: parsed.commonNames, organizations: parsed.organizations, parsed } };
}
