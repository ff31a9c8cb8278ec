// The refusals OCM's admission answers with, as kube-apiserver's error constructors shape them
// (NewBadRequest, NewForbidden). They live here, apart from the API server's error catalogue,
// because the webhook server (a plain API client) raises them too: the embedded server maps them
// onto its catalogue, the webhook puts `status` in its AdmissionReview response, and both send the
// same code, reason, message and details.

import type { Status, StatusDetails } from '../meta.js';

/** A resource named in a Forbidden message: `resource.group`. */
export interface AdmissionResource {
  group: string;
  resource: string;
}

export type AdmissionRefusal =
  | { reason: 'BadRequest'; message: string }
  | { reason: 'Forbidden'; qualifiedResource: AdmissionResource; name: string; detail: string };

function qualified(qr: AdmissionResource): string {
  return qr.group ? `${qr.resource}.${qr.group}` : qr.resource;
}

function messageOf(r: AdmissionRefusal): string {
  if (r.reason === 'BadRequest') return r.message;
  const subject = r.name ? `${qualified(r.qualifiedResource)} "${r.name}"` : qualified(r.qualifiedResource);
  return `${subject} is forbidden: ${r.detail}`;
}

function statusOf(r: AdmissionRefusal, message: string): Status {
  const code = r.reason === 'BadRequest' ? 400 : 403;
  let details: StatusDetails | undefined;
  if (r.reason === 'Forbidden') {
    const qr = r.qualifiedResource;
    details = { ...(r.name ? { name: r.name } : {}), ...(qr.group ? { group: qr.group } : {}), kind: qr.resource };
  }
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message, reason: r.reason, ...(details ? { details } : {}), code };
}

/** An admission rule refused the request; `status` is the metav1.Status to answer with. */
export class AdmissionError extends Error {
  readonly refusal: AdmissionRefusal;
  readonly code: 400 | 403;
  readonly status: Status;
  constructor(refusal: AdmissionRefusal, options?: { cause?: unknown }) {
    const message = messageOf(refusal);
    super(message, options);
    this.name = `${refusal.reason}Error`;
    this.refusal = refusal;
    this.code = refusal.reason === 'BadRequest' ? 400 : 403;
    this.status = statusOf(refusal, message);
  }
}

export const admissionErrors = {
  badRequest(message: string): AdmissionError {
    return new AdmissionError({ reason: 'BadRequest', message });
  },
  forbidden(qualifiedResource: AdmissionResource, name: string, detail: string, cause?: unknown): AdmissionError {
    return new AdmissionError({ reason: 'Forbidden', qualifiedResource, name, detail }, cause !== undefined ? { cause } : undefined);
  },
};
