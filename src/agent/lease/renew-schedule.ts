// When the lease updater renews next. After a success: OCM's cadence, duration × (1 + 0.25 U).
// After a failure: a short exponential backoff (1 s, 2 s, 4 s ...) capped at a quarter of the lease
// and stretched by up to half again at random. A hub that comes back then sees every lease renewed
// well within one lease period, while agents whose renewals failed together still spread their
// retries out instead of hitting the restarted hub in the same instant.

import { jitteredIntervalMs } from './lease-decision.js';

/** First retry after a failed renewal; no retry ever comes sooner. */
export const RETRY_BASE_MS = 1000;

/** Longest retry wait before jitter: a quarter of the lease, never below the base. */
export function retryCapMs(durationSeconds: number): number {
  return Math.max(RETRY_BASE_MS, (durationSeconds * 1000) / 4);
}

export interface RenewState {
  /** Failed renewals since the last success (0 = the last one succeeded). */
  failures: number;
  /** Retry-After the hub sent with the last failure (429/503), in seconds. */
  retryAfterSeconds?: number;
}

/**
 * Wait before the next renewal; `u` is uniform in [0, 1), drawn afresh each time. A Retry-After is
 * honoured over the backoff but never makes the wait longer than the normal cadence would.
 */
export function nextRenewDelayMs(durationSeconds: number, state: RenewState, u: number): number {
  const normal = jitteredIntervalMs(durationSeconds, u);
  if (state.failures <= 0) return normal;
  const exp = RETRY_BASE_MS * 2 ** Math.min(state.failures - 1, 30);
  const backoff = Math.round(Math.min(exp, retryCapMs(durationSeconds)) * (1 + 0.5 * u));
  const asked = state.retryAfterSeconds !== undefined && Number.isFinite(state.retryAfterSeconds) && state.retryAfterSeconds > 0 ? state.retryAfterSeconds * 1000 : 0;
  return Math.min(normal, Math.max(backoff, asked));
}
