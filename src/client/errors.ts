// Client error catalogue: every failed API call surfaces as an ApiStatusError (the server answered
// with a non-2xx status) or a NetworkError (no answer). retryDecision() maps either to what a
// controller should do next; it is pure and table-tested.

import type { Status } from '../api/meta.js';

/** The server answered with a non-2xx status; `status` is the metav1.Status it sent (or one synthesised from the code). */
export class ApiStatusError extends Error {
  readonly code: number;
  readonly reason: string;
  readonly status: Status;
  /** From the Retry-After header, else from `status.details.retryAfterSeconds`. */
  readonly retryAfterSeconds: number | undefined;
  constructor(status: Status, opts: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(status.message ?? `the server responded with status ${status.code}`, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'ApiStatusError';
    this.code = status.code;
    this.reason = status.reason ?? reasonForCode(status.code);
    this.status = status;
    this.retryAfterSeconds = opts.retryAfterSeconds ?? status.details?.retryAfterSeconds;
  }
}

/** No HTTP answer: connection refused/reset, TLS failure, timeout, a stream cut short, an undecodable body. */
export class NetworkError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'NetworkError';
  }
}

/** Marks a reconcile failure that must not be retried: the controller logs it and forgets the key. */
export class TerminalError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'TerminalError';
  }
}

const reasonByCode: Record<number, string> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

/** The Status reason kube-apiserver uses for a bare HTTP code ('' when it has none). */
function reasonForCode(code: number): string {
  return reasonByCode[code] ?? (code >= 500 ? 'InternalError' : '');
}

/** A Status for an answer whose body was not a Status (proxies, plain-text errors). */
export function statusFromCode(code: number, message?: string): Status {
  const reason = reasonForCode(code);
  return {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    message: message && message.length > 0 ? message : `the server responded with status ${code}`,
    ...(reason ? { reason } : {}),
    code,
  };
}

function codeOf(err: unknown): number | undefined {
  return err instanceof ApiStatusError ? err.code : undefined;
}

export function isNotFound(err: unknown): boolean {
  return codeOf(err) === 404;
}
export function isAlreadyExists(err: unknown): boolean {
  return err instanceof ApiStatusError && err.code === 409 && err.reason === 'AlreadyExists';
}
export function isConflict(err: unknown): boolean {
  return err instanceof ApiStatusError && err.code === 409 && err.reason !== 'AlreadyExists';
}
export function isForbidden(err: unknown): boolean {
  return codeOf(err) === 403;
}
export function isUnauthorized(err: unknown): boolean {
  return codeOf(err) === 401;
}
/** 410: resourceVersion too old (watch or list) or continue token expired. */
export function isGone(err: unknown): boolean {
  return codeOf(err) === 410;
}

export type RetryDecision =
  /** The object changed underneath: retry once the cache holds the newer version. */
  | { kind: 'conflict' }
  | { kind: 'after'; delayMs: number }
  | { kind: 'backoff' }
  | { kind: 'terminal' };

/**
 * What to do after a failed call: 409 → conflict (retry from a fresher cache), 429 → after Retry-After
 * (backoff when absent), 5xx / network / unknown → rate-limited backoff, other 4xx → terminal.
 */
export function retryDecision(err: unknown): RetryDecision {
  if (err instanceof TerminalError) return { kind: 'terminal' };
  if (!(err instanceof ApiStatusError)) return { kind: 'backoff' };
  const code = err.code;
  if (code === 409) return { kind: 'conflict' };
  if (code === 429) {
    const s = err.retryAfterSeconds;
    return s !== undefined && Number.isFinite(s) && s >= 0 ? { kind: 'after', delayMs: s * 1000 } : { kind: 'backoff' };
  }
  if (code >= 500 || code < 400) return { kind: 'backoff' };
  return { kind: 'terminal' };
}

