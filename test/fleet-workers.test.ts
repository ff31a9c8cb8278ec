// `ocm-ts fleet --workers 2` end to end at small scale: the agents run in two worker processes of
// the CLI, the coordinator sums their figures, Ctrl-C (SIGINT to the whole process group, as a
// terminal sends it) stops every process; a worker that dies is reported and its agents count as
// failed, and a worker whose coordinator dies stops by itself. Runs the built CLI, as a user would
// (OCM_TS_TEST_CLI may name src/cli/main.ts, run through tsx).

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { alive, childrenOf } from './helpers/processes.js';
import { waitFor } from './helpers/wait-for.js';

const MAIN = process.env['OCM_TS_TEST_CLI'] ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const EXEC_ARGV = MAIN.endsWith('.ts') ? ['--import', 'tsx'] : [];
const CLUSTERS = 6;

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  exited: Promise<number | null>;
  out(): string;
  err(): string;
  /** Resolves when stderr passes `check` (a pattern or a predicate); rejects if the fleet exits first. */
  until(check: RegExp | ((err: string) => boolean)): Promise<void>;
}

async function startFleet(): Promise<Run> {
  assert.ok(existsSync(MAIN), `${MAIN} is missing: run npm run build`);
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-fleet-workers-test-'));
  dirs.push(dir);
  const child = spawn(
    process.execPath,
    [...EXEC_ARGV, MAIN, 'fleet', '--clusters', String(CLUSTERS), '--workers', '2', '--hub-data-dir', join(dir, 'hub'), '--work-dir', join(dir, 'work'), '--lease-duration', '1s', '--progress-interval', '300ms', '--output', 'json'],
    // Its own process group, so that the test can send SIGINT to all of it as a terminal would.
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  return {
    child,
    exited,
    out: () => out,
    err: () => err,
    until: (check) =>
      Promise.race([
        waitFor(() => (check instanceof RegExp ? check.test(err) : check(err)), 60_000, { intervalMs: 50, message: String(check) }).then(() => undefined),
        exited.then((code) => {
          throw new Error(`fleet exited early (${code}): ${err.slice(-2000)}`);
        }),
      ]),
  };
}

async function cleanUp(run: Run, others: readonly number[]): Promise<void> {
  if (run.child.exitCode === null && run.child.signalCode === null) process.kill(-run.child.pid!, 'SIGKILL');
  await run.exited;
  for (const pid of others) if (alive(pid)) process.kill(pid, 'SIGKILL');
}

test('should run the agents in 2 workers, sum their figures and stop every process on Ctrl-C', async () => {
  const run = await startFleet();
  let children: Array<{ pid: number; args: string }> = [];
  try {
    await run.until(/fleet: all 6 clusters Joined and Available/);
    children = childrenOf(run.child.pid!);
    assert.equal(children.filter((c) => c.args.split(' ').includes('fleet-worker')).length, 2, JSON.stringify(children));
    // A few 1 s lease periods: every agent renews, in both workers.
    await run.until((err) => err.slice(err.indexOf('Joined and Available')).split('\nfleet: joined').length > 8);
    process.kill(-run.child.pid!, 'SIGINT');
    assert.equal(await run.exited, 0, run.err().slice(-2000));
    const report = JSON.parse(run.out().trim().split('\n').at(-1)!) as {
      started: number;
      joined: number;
      available: number;
      failed: number;
      leaseUpdate: { count: number; failures: number; p50Ms?: number; p99Ms?: number; simulatorLongestLoopDelayMs: number };
      openWatches: number;
      simulatorRssPerAgentBytes?: number;
    };
    assert.equal(report.started, CLUSTERS);
    assert.equal(report.joined, CLUSTERS);
    assert.equal(report.available, CLUSTERS);
    assert.equal(report.failed, 0);
    // Renewals are seen in the workers only; the coordinator holds no agent.
    assert.ok(report.leaseUpdate.count >= CLUSTERS, JSON.stringify(report.leaseUpdate));
    assert.ok(report.leaseUpdate.p99Ms !== undefined && report.leaseUpdate.p99Ms >= (report.leaseUpdate.p50Ms ?? 0), JSON.stringify(report.leaseUpdate));
    // the workers' own event-loop delays reach the coordinator (starting agents holds a worker's loop)
    assert.ok(report.leaseUpdate.simulatorLongestLoopDelayMs > 0, JSON.stringify(report.leaseUpdate));
    // Every agent's watches (in the workers) and the coordinator's own.
    assert.ok(report.openWatches > CLUSTERS, String(report.openWatches));
    assert.ok(report.simulatorRssPerAgentBytes !== undefined);
    for (const c of children) assert.equal(alive(c.pid), false, `process ${c.pid} (${c.args}) is still running`);
  } finally {
    await cleanUp(run, children.map((c) => c.pid));
  }
});

test('should count a dead worker\'s agents as failed, and a worker whose coordinator died should stop by itself', async () => {
  const run = await startFleet();
  let children: Array<{ pid: number; args: string }> = [];
  try {
    await run.until(/fleet: all 6 clusters Joined and Available/);
    children = childrenOf(run.child.pid!);
    const workers = children.filter((c) => c.args.split(' ').includes('fleet-worker'));
    assert.equal(workers.length, 2);
    process.kill(workers[0]!.pid, 'SIGKILL');
    await run.until(/worker \d \(pid \d+\) exited unasked \(SIGKILL\): its 3 agents count as failed/);
    await run.until(/fleet: joined[^\n]*failed 3, started 6/);
    // The coordinator dies without stopping anything: the other worker loses its channel and stops its agents.
    process.kill(run.child.pid!, 'SIGKILL');
    await run.exited;
    await waitFor(() => !alive(workers[1]!.pid), 15_000, { intervalMs: 50, message: 'the orphaned worker exits' });
  } finally {
    await cleanUp(run, children.map((c) => c.pid));
  }
});
