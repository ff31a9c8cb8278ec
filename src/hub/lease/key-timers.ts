// One pending timer per key: scheduling a key again replaces its previous timer, so each cluster has at
// most one wake-up and nothing scans every cluster periodically.

import type { Clock } from '../../util/clock.js';

export interface KeyTimers {
  schedule(key: string, delayMs: number): void;
  cancel(key: string): void;
  size(): number;
  stop(): void;
}

export function createKeyTimers(clock: Clock, fire: (key: string) => void): KeyTimers {
  const timers = new Map<string, { cancel(): void }>();
  let stopped = false;
  return {
    schedule(key, delayMs) {
      if (stopped) return;
      timers.get(key)?.cancel();
      const t = clock.setTimeout(() => {
        timers.delete(key);
        fire(key);
      }, Math.max(0, delayMs));
      timers.set(key, t);
    },
    cancel(key) {
      timers.get(key)?.cancel();
      timers.delete(key);
    },
    size: () => timers.size,
    stop() {
      stopped = true;
      for (const t of timers.values()) t.cancel();
      timers.clear();
    },
  };
}
