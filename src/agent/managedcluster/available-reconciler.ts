// Available reconciler: probe the spoke API server (`/livez`, falling back
// to `/healthz` on 404/403) and report ManagedClusterConditionAvailable. Reporting False is
// debounced: failures must persist for `failureThresholdMs` (20 s) before False is written; until
// then the existing condition is kept and a re-check is scheduled every `retryIntervalMs` (5 s).
// True is immediate and resets the failure window.

import type { ManagedCluster } from '../../api/cluster.js';
import { setCondition } from '../../api/conditions.js';
import { conditionTypes, reasons } from '../../api/constants.js';
import type { Condition } from '../../api/meta.js';
import type { KubeClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { StatusContext, StatusReconciler, StepResult } from './reconciler.js';
import { errorMessage } from '../../util/errors.js';

export type ProbeOutcome = { healthy: true } | { healthy: false; statusCode: number; detail: string };

const DEFAULT_FAILURE_THRESHOLD_MS = 20_000;
const DEFAULT_RETRY_INTERVAL_MS = 5_000;

/** The client-go style error text of a non-2xx answer. */
function serverErrorText(statusCode: number, body: string): string {
  const trimmed = body.trim();
  if (trimmed === '') return `the server responded with status ${statusCode}`;
  return `an error on the server ("${trimmed.length > 256 ? trimmed.slice(0, 256) + '...' : trimmed}") has prevented the request from succeeding`;
}

/** GET /livez, then /healthz when /livez answers 404 or 403. Never throws. */
export async function probeSpokeHealth(client: Pick<KubeClient, 'probe'>, signal: AbortSignal, timeoutMs?: number): Promise<ProbeOutcome> {
  const get = async (path: string): Promise<{ statusCode: number; detail: string }> => {
    try {
      const res = await client.probe(path, { signal, ...(timeoutMs !== undefined ? { timeoutMs } : {}) });
      if (res.statusCode === 200) return { statusCode: 200, detail: '' };
      const ok2xx = res.statusCode >= 200 && res.statusCode < 300;
      return { statusCode: res.statusCode, detail: ok2xx ? res.body : serverErrorText(res.statusCode, res.body) };
    } catch (err) {
      return { statusCode: 0, detail: errorMessage(err) };
    }
  };
  let res = await get('/livez');
  if (res.statusCode === 404 || res.statusCode === 403) res = await get('/healthz');
  return res.statusCode === 200 ? { healthy: true } : { healthy: false, statusCode: res.statusCode, detail: res.detail };
}

function availableTrueCondition(): Condition {
  return { type: conditionTypes.available, status: 'True', reason: reasons.managedClusterAvailable, message: 'Managed cluster is available' };
}

function availableFalseCondition(statusCode: number, detail: string): Condition {
  return {
    type: conditionTypes.available,
    status: 'False',
    reason: reasons.kubeAPIServerUnavailable,
    message: `The kube-apiserver is not ok, status code: ${statusCode}, ${detail}`,
  };
}

export interface AvailabilityDecision {
  /** The condition to upsert, if any (undefined keeps the existing one). */
  condition?: Condition;
  next: 'continue' | 'stop';
  /** New first-failure time (ms since epoch), undefined when cleared. */
  firstFailureAt: number | undefined;
  /** Re-check after this many ms. */
  recheckAfterMs?: number;
}

/** Pure debouncing decision. */
export function decideAvailability(input: {
  probe: ProbeOutcome;
  firstFailureAt: number | undefined;
  nowMs: number;
  failureThresholdMs: number;
  retryIntervalMs: number;
}): AvailabilityDecision {
  const { probe } = input;
  if (probe.healthy) return { condition: availableTrueCondition(), next: 'continue', firstFailureAt: undefined };
  const firstFailureAt = input.firstFailureAt ?? input.nowMs;
  if (input.nowMs - firstFailureAt >= input.failureThresholdMs) {
    return { condition: availableFalseCondition(probe.statusCode, probe.detail), next: 'stop', firstFailureAt };
  }
  return { next: 'stop', firstFailureAt, recheckAfterMs: input.retryIntervalMs };
}

export interface AvailableReconcilerOptions {
  /** Health probe (normally `(signal) => probeSpokeHealth(spokeClient, signal)`). */
  probe(signal: AbortSignal): Promise<ProbeOutcome>;
  clock: Clock;
  failureThresholdMs?: number;
  retryIntervalMs?: number;
}

/** Stateful (first-failure time), so one instance per status controller. */
export function createAvailableReconciler(opts: AvailableReconcilerOptions): StatusReconciler {
  const failureThresholdMs = opts.failureThresholdMs ?? DEFAULT_FAILURE_THRESHOLD_MS;
  const retryIntervalMs = opts.retryIntervalMs ?? DEFAULT_RETRY_INTERVAL_MS;
  let firstFailureAt: number | undefined;
  return {
    name: 'available',
    async reconcile(obj: ManagedCluster, ctx: StatusContext): Promise<StepResult> {
      const probe = await opts.probe(ctx.signal);
      const d = decideAvailability({ probe, firstFailureAt, nowMs: opts.clock.now(), failureThresholdMs, retryIntervalMs });
      firstFailureAt = d.firstFailureAt;
      if (d.condition) {
        const status = obj.status ?? {};
        status.conditions = setCondition(status.conditions, d.condition, ctx.now);
        obj.status = status;
      }
      if (d.recheckAfterMs !== undefined) ctx.requeueAfter(d.recheckAfterMs);
      return { obj, next: d.next };
    },
  };
}
