// The server's error catalogue: every failure the API answers with is built by one of the named
// constructors of `errors` below, carrying the full metav1.Status that goes on the wire (reason,
// code and message formats of kube-apiserver). errors.test.ts walks the catalogue.

import type { Status, StatusCause, StatusDetails } from '../../api/meta.js';

/** Every reason the server answers with, and the HTTP code kube-apiserver sends it with. */
export const STATUS_CODES = {
  BadRequest: 400,
  Unauthorized: 401,
  Forbidden: 403,
  NotFound: 404,
  MethodNotAllowed: 405,
  NotAcceptable: 406,
  AlreadyExists: 409,
  Conflict: 409,
  Expired: 410,
  RequestEntityTooLarge: 413,
  UnsupportedMediaType: 415,
  Invalid: 422,
  TooManyRequests: 429,
  InternalError: 500,
  Timeout: 504,
} as const;

export type StatusReason = keyof typeof STATUS_CODES;

export class ApiError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly status: Status;
  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails, options?: { cause?: unknown }) {
    // An API error is an answer (404, 409, 422…), not a fault: capturing its stack — deep async
    // stacks on every refused request — cost the hub more than answering. The status says it all;
    // a cause keeps its own stack.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      super(message, options);
    } finally {
      Error.stackTraceLimit = limit;
    }
    this.name = `${reason}Error`;
    this.code = code;
    this.reason = reason;
    this.status = {
      apiVersion: 'v1',
      kind: 'Status',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      ...(details && Object.keys(details).length > 0 ? { details } : {}),
      code,
    };
  }
}

/** Identifies a resource in messages: `resource` or `resource.group`. */
export interface QualifiedResource {
  group: string;
  resource: string;
}

function qualified(qr: QualifiedResource): string {
  return qr.group ? `${qr.resource}.${qr.group}` : qr.resource;
}

function details(qr: QualifiedResource, name?: string, extra?: StatusDetails): StatusDetails {
  return { ...(name ? { name } : {}), ...(qr.group ? { group: qr.group } : {}), kind: qr.resource, ...extra };
}

export const errors = {
  notFound(qr: QualifiedResource, name: string): ApiError {
    return new ApiError(404, 'NotFound', `${qualified(qr)} "${name}" not found`, details(qr, name));
  },
  noSuchResource(): ApiError {
    return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
  },
  alreadyExists(qr: QualifiedResource, name: string): ApiError {
    return new ApiError(409, 'AlreadyExists', `${qualified(qr)} "${name}" already exists`, details(qr, name));
  },
  /** Every name generated from metadata.generateName was taken. */
  nameGenerationFailed(qr: QualifiedResource, name: string): ApiError {
    return new ApiError(409, 'AlreadyExists',
      `${qualified(qr)} "${name}" already exists, the server was not able to generate a unique name for the object`, details(qr, name));
  },
  conflict(qr: QualifiedResource, name: string, detail: string): ApiError {
    return new ApiError(409, 'Conflict', `Operation cannot be fulfilled on ${qualified(qr)} "${name}": ${detail}`, details(qr, name));
  },
  /** Stale resourceVersion: the message kube-apiserver uses for optimistic-concurrency failures. */
  staleObject(qr: QualifiedResource, name: string): ApiError {
    return errors.conflict(qr, name, 'the object has been modified; please apply your changes to the latest version and try again');
  },
  applyConflict(message: string, causes: StatusCause[]): ApiError {
    return new ApiError(409, 'Conflict', message, { causes });
  },
  /**
   * 422 Invalid. `kind` is the Kind (not the resource); causes carry `field` and a message such as
   * `Required value` or `Invalid value: "x": detail`.
   */
  invalid(kind: string, group: string, name: string, causes: FieldError[]): ApiError {
    const rendered = causes.map((c) => `${c.field}: ${c.message}`);
    const list = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
    const subject = group ? `${kind}.${group}` : kind;
    return new ApiError(422, 'Invalid', `${subject} "${name}" is invalid: ${list}`, {
      ...(name ? { name } : {}),
      ...(group ? { group } : {}),
      kind,
      causes: causes.map((c) => ({ reason: c.reason, message: c.message, field: c.field })),
    });
  },
  /** 422 on the query options of a request: `kind` is ListOptions, DeleteOptions or PatchOptions. */
  invalidOptions(kind: string, causes: FieldError[]): ApiError {
    return errors.invalid(kind, 'meta.k8s.io', '', causes);
  },
  /** 422 naming one bad list option, worded as kube-apiserver words it. */
  invalidListOption(cause: FieldError): ApiError {
    return new ApiError(422, 'Invalid', `ListOptions.meta.k8s.io "" is invalid: ${cause.field}: ${cause.message}`, {
      group: 'meta.k8s.io', kind: 'ListOptions', causes: [cause],
    });
  },
  /** 413 for a list above the server's response cap: the client should page with limit/continue. */
  listTooLarge(bytes: number, items: number, maxBytes: number): ApiError {
    const mib = (n: number): string => (n / (1024 * 1024)).toFixed(1);
    return new ApiError(413, 'RequestEntityTooLarge',
      `the list would be about ${mib(bytes)} MiB (${items} items), more than the server's limit of ${mib(maxBytes)} MiB for one response: request it in pages with the limit and continue parameters`);
  },
  /** 422 with a message only: a patch that cannot be applied to the object. */
  unprocessable(message: string): ApiError {
    return new ApiError(422, 'Invalid', message);
  },
  badRequest(message: string): ApiError {
    return new ApiError(400, 'BadRequest', message);
  },
  unauthorized(): ApiError {
    return new ApiError(401, 'Unauthorized', 'Unauthorized');
  },
  forbidden(qr: QualifiedResource, name: string | undefined, message: string): ApiError {
    const subject = name ? `${qualified(qr)} "${name}"` : qualified(qr);
    return new ApiError(403, 'Forbidden', `${subject} is forbidden: ${message}`, details(qr, name));
  },
  /** A create in a namespace that is being deleted. */
  namespaceTerminating(qr: QualifiedResource, name: string, namespace: string): ApiError {
    return new ApiError(403, 'Forbidden',
      `${qualified(qr)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      details(qr, name, { causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }] }));
  },
  forbiddenPath(user: string, verb: string, path: string): ApiError {
    return new ApiError(403, 'Forbidden', `forbidden: User "${user}" cannot ${verb} path "${path}"`);
  },
  unsupportedMediaType(accepted: string[]): ApiError {
    return new ApiError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`);
  },
  notAcceptable(accepted: string[]): ApiError {
    return new ApiError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`);
  },
  methodNotAllowed(): ApiError {
    return new ApiError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource');
  },
  methodNotSupported(qr: QualifiedResource, verb: string): ApiError {
    return new ApiError(405, 'MethodNotAllowed', `${verb} is not supported on resources of kind "${qualified(qr)}"`, details(qr));
  },
  expired(message: string): ApiError {
    return new ApiError(410, 'Expired', message);
  },
  tooOldResourceVersion(requested: number | string, oldest: number | string): ApiError {
    return new ApiError(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
  },
  tooLargeResourceVersion(requested: number | string, current: number | string): ApiError {
    return new ApiError(504, 'Timeout', `Timeout: Too large resource version: ${requested}, current: ${current}`, {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    });
  },
  /** kube-apiserver's answer when its in-flight limit is reached. */
  tooManyRequests(): ApiError {
    return new ApiError(429, 'TooManyRequests', 'Too many requests, please try again later.', { retryAfterSeconds: 1 });
  },
  tooLarge(limitBytes: number): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${limitBytes}`);
  },
  tooManyPatchOperations(max: number, got: number): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge', `The allowed maximum operations in a JSON patch is ${max}, got ${got}`);
  },
  /**
   * An object larger than the store keeps. kube-apiserver passes etcd's refusal on as a 500; this
   * server answers 413 and states the limit, so the client knows the write can never succeed.
   */
  objectTooLarge(qr: QualifiedResource, name: string, sizeBytes: number, limitBytes: number): ApiError {
    return new ApiError(413, 'RequestEntityTooLarge',
      `Request entity too large: ${qualified(qr)} "${name}" is ${sizeBytes} bytes once encoded, limit is ${limitBytes}`, details(qr, name));
  },
  internal(detail: string, cause?: unknown): ApiError {
    return new ApiError(500, 'InternalError', `Internal error occurred: ${detail}`, { causes: [{ message: detail }] }, { cause });
  },
};

/** One field error inside a 422 Invalid. */
export interface FieldError {
  field: string;
  reason: 'FieldValueRequired' | 'FieldValueInvalid' | 'FieldValueNotSupported' | 'FieldValueDuplicate' | 'FieldValueForbidden' | 'FieldValueTooLong' | 'FieldValueTypeInvalid' | 'FieldValueTooMany';
  /** Already rendered, e.g. `Required value` or `Invalid value: "x": must be ...`. */
  message: string;
}

/** Builders for field errors with kube-apiserver's renderings. */
export const fieldErrors = {
  required(field: string, detail?: string): FieldError {
    return { field, reason: 'FieldValueRequired', message: detail ? `Required value: ${detail}` : 'Required value' };
  },
  invalid(field: string, value: unknown, detail: string): FieldError {
    return { field, reason: 'FieldValueInvalid', message: `Invalid value: ${renderValue(value)}: ${detail}` };
  },
  notSupported(field: string, value: unknown, supported: string[]): FieldError {
    return {
      field,
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${renderValue(value)}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
    };
  },
  duplicate(field: string, value: unknown): FieldError {
    return { field, reason: 'FieldValueDuplicate', message: `Duplicate value: ${renderValue(value)}` };
  },
  forbidden(field: string, detail: string): FieldError {
    return { field, reason: 'FieldValueForbidden', message: `Forbidden: ${detail}` };
  },
  tooLong(field: string, max: number): FieldError {
    return { field, reason: 'FieldValueTooLong', message: `Too long: may not be more than ${max} bytes` };
  },
  typeInvalid(field: string, value: unknown, detail: string): FieldError {
    return { field, reason: 'FieldValueTypeInvalid', message: `Invalid value: ${renderValue(value)}: ${detail}` };
  },
};

function renderValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  return JSON.stringify(v);
}
