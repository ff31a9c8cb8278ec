// What one run of the start sequence leaves running, and how it winds down: every controller and
// wait it started is awaited once the run's signal has aborted, then the clients it opened are
// closed. Each phase hands what it starts to the scope, so no phase has to know what came before.

import { waitForCacheSync, type Syncable } from '../../client/wait-synced.js';
import type { Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';

/** A controller, as the start sequence sees it. */
export interface Runnable {
  readonly name: string;
  /** Runs until the signal aborts (controllers wait for their own informers' caches). */
  run(signal: AbortSignal): Promise<void>;
}

export interface RunScope {
  /** Runs each controller until the signal aborts; an error it stops with is logged, unless it was stopping anyway. */
  start(runnables: readonly Runnable[], signal: AbortSignal, log: Logger): void;
  /** Keeps a task that must settle before the scope ends. */
  track(task: Promise<unknown>): void;
  /** Registers a clean-up, run in registration order once every task has settled. */
  onEnd(cleanUp: () => void): void;
  /** Waits for every task, then runs the clean-ups. */
  end(): Promise<void>;
}

export function createRunScope(): RunScope {
  const tasks: Promise<unknown>[] = [];
  const cleanUps: Array<() => void> = [];
  return {
    start(runnables, signal, log) {
      for (const r of runnables) {
        tasks.push(
          r.run(signal).catch((err: unknown) => {
            if (!signal.aborted) log.error('controller stopped with an error', { controller: r.name, err });
          }),
        );
      }
    },
    track(task) {
      tasks.push(task);
    },
    onEnd(cleanUp) {
      cleanUps.push(cleanUp);
    },
    async end() {
      await Promise.allSettled(tasks);
      for (const c of cleanUps) c();
    },
  };
}

export interface SyncGate {
  clock: Clock;
  timeoutMs: number;
  signal: AbortSignal;
}

/**
 * Waits for `what` caches to load; resolves false when the signal aborted first. Caches that do not
 * load in time fail the start, as OCM's agent exits when an informer never syncs.
 */
export async function waitSynced(caches: readonly Syncable[], what: string, gate: SyncGate): Promise<boolean> {
  try {
    return await waitForCacheSync(caches, { signal: gate.signal, clock: gate.clock, timeoutMs: gate.timeoutMs, what });
  } catch (err) {
    throw new Error(`failed to wait for ${what} caches to sync: ${errorMessage(err)}`, { cause: err });
  }
}

export interface GatedRun {
  controller: Runnable;
  /** The caches the controller reads, and their name in errors. */
  caches: readonly Syncable[];
  what: string;
  gate: SyncGate;
  /** Cancels the run (a restart). */
  cancel(reason: string): void;
  log: Logger;
}

/**
 * Starts a controller once its caches have loaded. Caches that never load cancel the run (a
 * restart), since the controller cannot work without them.
 */
export async function runWhenSynced(g: GatedRun): Promise<void> {
  let synced: boolean;
  try {
    synced = await waitSynced(g.caches, g.what, g.gate);
  } catch (err) {
    g.cancel(`${g.controller.name}: ${errorMessage(err)}`);
    return;
  }
  if (!synced) return;
  try {
    await g.controller.run(g.gate.signal);
  } catch (err) {
    if (!g.gate.signal.aborted) g.log.error('controller stopped with an error', { controller: g.controller.name, err });
  }
}

/** Resolves when the signal aborts. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
