// The longest event-loop delay of this process since the last reset: a request an agent times (a
// lease renewal) that waits behind such a delay counts it in its latency, so the fleet prints it
// beside the latencies to tell the simulator's own stalls from the hub's.

import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface LoopDelayMeter {
  /** Longest delay since the last reset (ms; 0 before the first sample). */
  longestMs(): number;
  reset(): void;
  close(): void;
}

export function createLoopDelayMeter(): LoopDelayMeter {
  // 10 ms sampling: a stall that delays requests by tens of milliseconds or more is what matters
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return {
    longestMs: () => h.max / 1e6,
    reset: () => h.reset(),
    close: () => h.disable(),
  };
}
