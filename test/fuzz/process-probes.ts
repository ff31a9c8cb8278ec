// Probes of the process the embedded server runs in (the test process): how long the event loop
// was blocked during a request, and whether a request polluted the built-in prototypes.

import { monitorEventLoopDelay, PerformanceObserver, performance, type IntervalHistogram } from 'node:perf_hooks';

/**
 * Event-loop blocking measured with Node's delay histogram, plus the garbage-collection pauses of
 * the same window (reported with a block, to tell a slow handler from a pause of the whole heap).
 */
export class LoopMonitor {
  private readonly h: IntervalHistogram;
  private readonly gc: PerformanceObserver;
  private gcPauses: { start: number; ms: number }[] = [];
  private windowStart = performance.now();

  constructor(private readonly resolutionMs = 5) {
    this.h = monitorEventLoopDelay({ resolution: resolutionMs });
    this.h.enable();
    this.gc = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) this.gcPauses.push({ start: e.startTime, ms: e.duration });
    });
    this.gc.observe({ entryTypes: ['gc'] });
  }

  private cpuStart = process.cpuUsage();

  /** Starts a new measurement window. */
  reset(): void {
    this.h.reset();
    this.windowStart = performance.now();
    this.gcPauses = [];
    this.cpuStart = process.cpuUsage();
  }

  /**
   * The window's blocking, for the event-loop property. `wallMs` is the longest gap between two
   * ticks; on a loaded machine (tests run in parallel on few cores) the process can be descheduled
   * that long without running anything. Blocking code burns CPU for as long as it blocks, so the
   * block charged to the server is the smaller of the gap and the CPU time the process used in the
   * window, less garbage-collection pauses (a property of the test process's whole heap).
   */
  measure(): { blockedMs: number; wallMs: number; cpuMs: number; gcMs: number } {
    const wallMs = this.maxBlockMs();
    const cpu = process.cpuUsage(this.cpuStart);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const gcMs = this.gcInWindow().totalMs;
    return { blockedMs: Math.max(0, Math.min(wallMs, cpuMs) - gcMs), wallMs, cpuMs, gcMs };
  }

  /** Longest and total GC pause since the window started. */
  gcInWindow(): { maxMs: number; totalMs: number } {
    const inWindow = this.gcPauses.filter((p) => p.start >= this.windowStart);
    return { maxMs: Math.max(0, ...inWindow.map((p) => p.ms)), totalMs: inWindow.reduce((a, p) => a + p.ms, 0) };
  }

  /**
   * Longest block of the window in ms. The histogram records the time between two ticks of a
   * `resolution` timer, so a block shows up as up to `resolution` longer than it was: subtract it.
   */
  maxBlockMs(): number {
    const max = this.h.count > 0 ? this.h.max / 1e6 : 0;
    return Math.max(0, max - this.resolutionMs);
  }

  close(): void {
    this.h.disable();
    this.gc.disconnect();
  }
}

const PROTOTYPES: [string, object][] = [['Object', Object.prototype], ['Array', Array.prototype], ['Function', Function.prototype], ['String', String.prototype]];

export type PrototypeSnapshot = Map<string, string[]>;

export function prototypeSnapshot(): PrototypeSnapshot {
  return new Map(PROTOTYPES.map(([n, p]) => [n, Reflect.ownKeys(p).map(String).sort()]));
}

/** Keys added to built-in prototypes since `before`; removes them so the run can go on. */
export function prototypeAdditions(before: PrototypeSnapshot): string[] {
  const added: string[] = [];
  for (const [n, p] of PROTOTYPES) {
    const known = new Set(before.get(n) ?? []);
    for (const k of Reflect.ownKeys(p)) {
      if (known.has(String(k))) continue;
      added.push(`${n}.prototype.${String(k)}`);
      Reflect.deleteProperty(p, k);
    }
  }
  return added;
}
