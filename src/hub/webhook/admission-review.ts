// AdmissionReview (admission.k8s.io/v1, or v1beta1 which has the same shape): the envelope
// kube-apiserver posts to a webhook and the answer it expects back, in the version it was asked in.
// OCM's webhook configurations list v1beta1 first, so a kube-apiserver sends v1beta1 reviews. Decoding is strict about the envelope (an unusable one is the caller's
// 400) and about the objects inside (a bad one is refused in the response, as controller-runtime
// does), so nothing that reaches the rules has a shape they do not expect.

import type { Status } from '../../api/meta.js';
import type { KubeObject } from '../../api/meta.js';
import type { AdmissionUser } from '../../api/admission/managed-cluster-validating.js';

const ADMISSION_API_VERSIONS = ['admission.k8s.io/v1', 'admission.k8s.io/v1beta1'] as const;
type AdmissionApiVersion = (typeof ADMISSION_API_VERSIONS)[number];
const isAdmissionApiVersion = (v: unknown): v is AdmissionApiVersion => (ADMISSION_API_VERSIONS as readonly unknown[]).includes(v);

type ReviewOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
const OPERATIONS: readonly string[] = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

interface GroupVersionResource {
  group: string;
  version: string;
  resource: string;
}

/** The parts of AdmissionRequest the OCM rules read. */
export interface ReviewRequest {
  /** The review's version: the answer goes back in it. */
  apiVersion: AdmissionApiVersion;
  uid: string;
  resource: GroupVersionResource;
  subResource: string;
  name: string;
  namespace: string;
  operation: ReviewOperation;
  userInfo: AdmissionUser;
  /** Raw JSON of the new object (CREATE, UPDATE) and of the stored one (UPDATE, DELETE). */
  object: unknown;
  oldObject: unknown;
}

export interface ReviewResponse {
  uid: string;
  allowed: boolean;
  status?: Partial<Status> & { code: number };
  patchType?: 'JSONPatch';
  /** Base64 of the JSON Patch document. */
  patch?: string;
}

export interface AdmissionReviewOut {
  apiVersion: AdmissionApiVersion;
  kind: 'AdmissionReview';
  response: ReviewResponse;
}

/** The body is not an AdmissionReview v1 with a usable request: answered with HTTP 400. */
export class ReviewInputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReviewInputError';
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optionalString = (v: unknown): string => (typeof v === 'string' ? v : '');
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

function decodeUser(v: unknown): AdmissionUser {
  if (v !== undefined && !isRecord(v)) throw new ReviewInputError('request.userInfo must be an object');
  const u = v ?? {};
  if (u.groups !== undefined && u.groups !== null && !isStringList(u.groups)) throw new ReviewInputError('request.userInfo.groups must be a list of strings');
  const extra: Record<string, string[]> = {};
  if (u.extra !== undefined && u.extra !== null) {
    if (!isRecord(u.extra)) throw new ReviewInputError('request.userInfo.extra must be an object');
    for (const [k, vals] of Object.entries(u.extra)) {
      if (!isStringList(vals)) throw new ReviewInputError(`request.userInfo.extra[${JSON.stringify(k)}] must be a list of strings`);
      extra[k] = vals;
    }
  }
  return {
    username: optionalString(u.username),
    ...(typeof u.uid === 'string' && u.uid !== '' ? { uid: u.uid } : {}),
    groups: isStringList(u.groups) ? u.groups : [],
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

/** Decodes the envelope; throws ReviewInputError when it cannot be answered at all. */
export function decodeAdmissionReview(body: unknown): ReviewRequest {
  if (!isRecord(body)) throw new ReviewInputError('the body must be a JSON object (an AdmissionReview)');
  if (!isAdmissionApiVersion(body.apiVersion) || body.kind !== 'AdmissionReview') {
    throw new ReviewInputError(`expected apiVersion ${ADMISSION_API_VERSIONS.join(' or ')} and kind AdmissionReview, got apiVersion ${JSON.stringify(body.apiVersion ?? '')} and kind ${JSON.stringify(body.kind ?? '')}`);
  }
  const req = body.request;
  if (!isRecord(req)) throw new ReviewInputError('request is missing or not an object');
  if (typeof req.uid !== 'string' || req.uid === '') throw new ReviewInputError('request.uid is required');
  if (typeof req.operation !== 'string' || !OPERATIONS.includes(req.operation)) {
    throw new ReviewInputError(`request.operation must be one of ${OPERATIONS.join(', ')}, got ${JSON.stringify(req.operation ?? '')}`);
  }
  const res = isRecord(req.resource) ? req.resource : {};
  return {
    apiVersion: body.apiVersion,
    uid: req.uid,
    resource: { group: optionalString(res.group), version: optionalString(res.version), resource: optionalString(res.resource) },
    subResource: optionalString(req.subResource),
    name: optionalString(req.name),
    namespace: optionalString(req.namespace),
    operation: req.operation as ReviewOperation,
    userInfo: decodeUser(req.userInfo),
    object: req.object ?? undefined,
    oldObject: req.oldObject ?? undefined,
  };
}

/**
 * An object of the review as the rules expect it: a JSON object whose metadata (if any) is an
 * object with string name and string-valued labels. Returns the problem instead, for the response.
 */
export function decodeObject(raw: unknown, field: 'object' | 'oldObject'): KubeObject | string {
  if (!isRecord(raw)) return `request.${field} must be a JSON object`;
  const meta = raw.metadata ?? {};
  if (!isRecord(meta)) return `request.${field}.metadata must be an object`;
  if (meta.name !== undefined && typeof meta.name !== 'string') return `request.${field}.metadata.name must be a string`;
  if (meta.labels !== undefined && meta.labels !== null) {
    if (!isRecord(meta.labels) || !Object.values(meta.labels).every((v) => typeof v === 'string')) {
      return `request.${field}.metadata.labels must map strings to strings`;
    }
  }
  return { ...raw, metadata: { ...meta } } as KubeObject;
}

export function reviewResponse(response: ReviewResponse, apiVersion: AdmissionApiVersion): AdmissionReviewOut {
  return { apiVersion, kind: 'AdmissionReview', response };
}
