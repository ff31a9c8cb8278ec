import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../util/logger.js';
import { ApiStatusError, statusFromCode } from './errors.js';
import { createController, TerminalError } from './controller.js';
import { keyOf, splitKey } from './keys.js';
import { createManualClock } from './manual-clock.js';
import { waitFor } from '../../test/helpers/wait-for.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const log = createLogger({ level: 'debug', write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) });
  return { lines, log };
}

test('should reconcile enqueued keys and log one line per run with a reconcileId', async () => {
  const { lines, log } = capture();
  const seen: string[] = [];
  let n = 0;
  const c = createController({ name: 'demo', log, reconcile: async (key) => void seen.push(key), newReconcileId: () => `r${++n}` });
  const ac = new AbortController();
  c.enqueue('a');
  c.enqueue('a');
  c.enqueue('ns/b');
  const run = c.run(ac.signal);
  await waitFor(() => seen.length === 2);
  ac.abort();
  await run;
  assert.deepEqual(seen, ['a', 'ns/b']);
  const recs = lines.filter((l) => l.msg === 'reconcile');
  assert.equal(recs.length, 2);
  assert.deepEqual(recs.map((l) => [l.controller, l.key, l.reconcileId, l.level, typeof l.durationMs]), [
    ['demo', 'a', 'r1', 'debug', 'number'],
    ['demo', 'ns/b', 'r2', 'debug', 'number'],
  ]);
});

test('should retry failures with the per-key backoff and forget on success', async () => {
  const { log } = capture();
  const clock = createManualClock();
  let calls = 0;
  const c = createController({
    name: 't',
    log,
    clock,
    reconcile: async () => {
      calls++;
      if (calls <= 3) throw new ApiStatusError(statusFromCode(500, 'boom'));
    },
  });
  const ac = new AbortController();
  const run = c.run(ac.signal);
  c.enqueue('k');
  const dues: number[] = [];
  for (let i = 1; i <= 3; i++) {
    await waitFor(() => calls === i && clock.pending() > 0);
    const due = (clock.nextDue() as number) - clock.now();
    dues.push(due);
    clock.advance(due);
  }
  await waitFor(() => calls === 4);
  assert.deepEqual(dues, [5, 10, 20]);
  ac.abort();
  await run;
});

test('should not retry a TerminalError, retry other errors, and convert thrown non-Errors', async () => {
  const { log, lines } = capture();
  const clock = createManualClock();
  const calls: string[] = [];
  const c = createController({
    name: 't',
    log,
    clock,
    reconcile: async (key) => {
      calls.push(key);
      if (key === 'term') throw new TerminalError('bad spec');
      if (key === '404') throw new ApiStatusError(statusFromCode(404, 'nope'));
      throw 'a string';
    },
  });
  const ac = new AbortController();
  const run = c.run(ac.signal);
  c.enqueue('term');
  c.enqueue('404');
  c.enqueue('str');
  await waitFor(() => calls.length === 3);
  await waitFor(() => lines.filter((l) => l.key === 'str').length === 1);
  assert.equal(clock.pending(), 2, '404 and the non-Error are retried with backoff (OCM semantics)');
  const errLines = lines.filter((l) => l.level === 'error');
  assert.deepEqual(errLines.map((l) => l.key), ['term']);
  const str = lines.find((l) => l.key === 'str');
  assert.deepEqual((str?.err as { message: string }).message, 'a string');
  ac.abort();
  await run;
});

test('should make 4xx API errors terminal when terminalOnClientErrors is set', async () => {
  const { log, lines } = capture();
  const clock = createManualClock();
  let calls = 0;
  const c = createController({
    name: 't',
    log,
    clock,
    terminalOnClientErrors: true,
    reconcile: async () => {
      calls++;
      throw new ApiStatusError(statusFromCode(403, 'forbidden'));
    },
  });
  const ac = new AbortController();
  const run = c.run(ac.signal);
  c.enqueue('k');
  await waitFor(() => lines.some((l) => l.key === 'k'));
  assert.equal(calls, 1);
  assert.equal(clock.pending(), 0);
  assert.equal(lines.find((l) => l.key === 'k')?.level, 'error');
  ac.abort();
  await run;
});

test('should wait for informer caches before starting workers, and fail after the sync timeout', async () => {
  const { log } = capture();
  const clock = createManualClock();
  let synced!: () => void;
  const informer = { waitForSync: () => new Promise<void>((r) => (synced = r)) };
  const seen: string[] = [];
  const c = createController({ name: 't', log, clock, waitForSync: [informer], reconcile: async (k) => void seen.push(k) });
  const ac = new AbortController();
  c.enqueue('k');
  const run = c.run(ac.signal);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(seen, []);
  synced();
  await waitFor(() => seen.length === 1);
  ac.abort();
  await run;
  const stuck = createController({ name: 'stuck', log, clock, syncTimeoutMs: 1000, waitForSync: [{ waitForSync: (s?: AbortSignal) => new Promise<void>((_r, j) => s?.addEventListener('abort', () => j(s.reason))) }], reconcile: async () => undefined });
  const p = stuck.run(new AbortController().signal);
  await new Promise((r) => setImmediate(r));
  clock.advance(1000);
  await assert.rejects(p, /caches not synced within 1000 ms/);
});

test('should honour requeueAfterMs, retry a 409 after the rate limiter delay or at once on a new event, and honour 429 Retry-After', async () => {
  const { log } = capture();
  const clock = createManualClock();
  const calls: string[] = [];
  const c = createController({
    name: 't',
    log,
    clock,
    reconcile: async (key) => {
      calls.push(key);
      const n = calls.filter((k) => k === key).length;
      if (key === 'later' && n === 1) return { requeueAfterMs: 30_000 };
      if ((key === 'conflict' || key === 'conflict2') && n === 1) throw new ApiStatusError(statusFromCode(409, 'conflict'));
      if (key === 'slow' && n === 1) throw new ApiStatusError(statusFromCode(429, 'slow down'), { retryAfterSeconds: 7 });
      return undefined;
    },
  });
  const ac = new AbortController();
  const run = c.run(ac.signal);
  c.enqueue('conflict');
  // The fallback retry waits on the rate limiter (5 ms first)...
  await waitFor(() => calls.includes('conflict') && clock.pending() === 1);
  assert.equal((clock.nextDue() as number) - clock.now(), 5);
  clock.advance(5);
  await waitFor(() => calls.filter((k) => k === 'conflict').length === 2);
  // ...while the watch event of the newer object re-queues it at once.
  c.enqueue('conflict2');
  await waitFor(() => calls.includes('conflict2') && clock.pending() === 1);
  c.enqueue('conflict2');
  await waitFor(() => calls.filter((k) => k === 'conflict2').length === 2);
  clock.advance(5);
  await waitFor(() => calls.filter((k) => k === 'conflict2').length === 3);
  c.enqueue('later');
  await waitFor(() => calls.includes('later') && clock.pending() === 1);
  assert.equal((clock.nextDue() as number) - clock.now(), 30_000);
  clock.advance(30_000);
  await waitFor(() => calls.filter((k) => k === 'later').length === 2);
  c.enqueue('slow');
  await waitFor(() => calls.includes('slow') && clock.pending() === 1);
  assert.equal((clock.nextDue() as number) - clock.now(), 7000);
  ac.abort();
  await run;
});

test('should never run one key twice at once, and rerun a key enqueued while running', async () => {
  const { log } = capture();
  let active = 0;
  let maxActive = 0;
  let runs = 0;
  let release: (() => void) | undefined;
  const c = createController({
    name: 't',
    log,
    workers: 4,
    reconcile: async () => {
      active++;
      maxActive = Math.max(maxActive, active);
      runs++;
      if (runs === 1) await new Promise<void>((r) => (release = r));
      active--;
    },
  });
  const ac = new AbortController();
  const run = c.run(ac.signal);
  c.enqueue('k');
  await waitFor(() => release !== undefined);
  c.enqueue('k');
  c.enqueue('k');
  await new Promise((r) => setImmediate(r));
  assert.equal(runs, 1);
  release?.();
  await waitFor(() => runs === 2);
  assert.equal(maxActive, 1);
  ac.abort();
  await run;
  assert.equal(runs, 2);
});

test('should wait for in-flight reconciles when stopping', async () => {
  const { log } = capture();
  let finished = false;
  let started = false;
  const c = createController({
    name: 't',
    log,
    reconcile: async (_key, signal) => {
      started = true;
      // Still busy when the stop comes, and for a moment after it.
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      await new Promise((r) => setImmediate(r));
      finished = true;
    },
  });
  const ac = new AbortController();
  const run = c.run(ac.signal);
  c.enqueue('k');
  await waitFor(() => started);
  ac.abort();
  await run;
  assert.equal(finished, true);
});

test('should enqueue resyncKeys at start and then periodically', async () => {
  const { log } = capture();
  const clock = createManualClock();
  const seen: string[] = [];
  const c = createController({ name: 't', log, clock, resyncMs: 1000, resyncKeys: () => ['x', 'y'], reconcile: async (k) => void seen.push(k) });
  const ac = new AbortController();
  const run = c.run(ac.signal);
  await waitFor(() => seen.length === 2); // once at start
  clock.advance(1000);
  await waitFor(() => seen.length === 4);
  clock.advance(1000);
  await waitFor(() => seen.length === 6);
  ac.abort();
  await run;
});

test('should build and split keys', () => {
  assert.equal(keyOf({ metadata: { name: 'a', namespace: 'n' } }), 'n/a');
  assert.equal(keyOf({ metadata: { name: 'c' } }), 'c');
  assert.deepEqual(splitKey('n/a'), { namespace: 'n', name: 'a' });
  assert.deepEqual(splitKey('c'), { namespace: undefined, name: 'c' });
});
