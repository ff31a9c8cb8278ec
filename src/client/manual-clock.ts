// A Clock whose time only moves when a test says so: advance(ms) runs due timers in time order.
// For tests of the queue, informer and controllers (inject it instead of realClock).

import type { Clock } from '../util/clock.js';

export interface ManualClock extends Clock {
  /** Moves time forward, firing every timer due by then (in due order). */
  advance(ms: number): void;
  /** Number of timers not yet fired or cancelled. */
  pending(): number;
  /** Due time of the earliest pending timer. */
  nextDue(): number | undefined;
}

interface Timer {
  at: number;
  seq: number;
  fn: () => void;
}

export function createManualClock(startMs = 1_700_000_000_000): ManualClock {
  let now = startMs;
  let seq = 0;
  const timers = new Set<Timer>();
  const setT = (fn: () => void, ms: number): { cancel(): void } => {
    const t: Timer = { at: now + Math.max(0, ms), seq: seq++, fn };
    timers.add(t);
    return { cancel: () => void timers.delete(t) };
  };
  const earliest = (): Timer | undefined => {
    let best: Timer | undefined;
    for (const t of timers) if (!best || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    return best;
  };
  return {
    now: () => now,
    setTimeout: setT,
    sleep(ms, signal) {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const onAbort = (): void => {
          t.cancel();
          reject(signal?.reason);
        };
        const t = setT(() => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        }, ms);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    advance(ms) {
      const target = now + ms;
      for (;;) {
        const t = earliest();
        if (!t || t.at > target) break;
        timers.delete(t);
        now = Math.max(now, t.at);
        t.fn();
      }
      now = target;
    },
    pending: () => timers.size,
    nextDue: () => earliest()?.at,
  };
}
