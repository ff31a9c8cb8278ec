// `ocm-ts fleet` end to end at small scale: 20 real agents join a hub the command starts in a child
// process, survive a SIGKILL of that hub without a new CSR or a re-bootstrap, and Ctrl-C (SIGINT)
// stops every agent and the hub, leaving no process behind. Runs the built CLI, as a user would.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { alive, childrenOf } from './helpers/processes.js';

const MAIN = process.env['OCM_TS_TEST_CLI'] ?? fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const CLUSTERS = 20;

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

test('should join 20 agents, survive a hub SIGKILL without new CSRs and stop every process on SIGINT', async () => {
  // npm test builds first; run alone, the test fails with the reason rather than skipping.
  assert.ok(existsSync(MAIN), `${MAIN} is missing: run npm run build`);
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-fleet-test-'));
  dirs.push(dir);
  const child = spawn(
    process.execPath,
    [MAIN, 'fleet', '--clusters', String(CLUSTERS), '--hub-data-dir', join(dir, 'hub'), '--work-dir', join(dir, 'work'), '--lease-duration', '1s', '--hub-restart', '1s', '--progress-interval', '500ms', '--output', 'json'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const restarted = new Promise<void>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      err += d;
      if (/fleet: hub restart survived/.test(err)) resolve();
    });
    void exited.then((code) => reject(new Error(`fleet exited early (${code}): ${err.slice(-2000)}`)));
  });
  try {
    await restarted;
    const children = childrenOf(child.pid!).map((c) => c.pid);
    assert.ok(children.length >= 1, 'the hub runs as a child process');
    child.kill('SIGINT');
    const code = await exited;
    assert.equal(code, 0, err.slice(-2000));
    const report = JSON.parse(out.trim().split('\n').at(-1)!) as {
      joined: number;
      available: number;
      failed: number;
      hubRestart: { newCsrs: number; rebootstraps: number; recoverMs: number; leaseRequests: Record<'untilReady' | 'afterReady', { total: number }> };
      leaseUpdate: { count: number };
    };
    // A failure says why: the final figures and the fleet's last progress and event lines.
    const why = `${JSON.stringify(report)}\n${err.slice(-2000)}`;
    assert.equal(report.joined, CLUSTERS, why);
    assert.equal(report.available, CLUSTERS, why);
    assert.equal(report.failed, 0, why);
    assert.equal(report.hubRestart.newCsrs, 0);
    assert.equal(report.hubRestart.rebootstraps, 0);
    // Every cluster renewed on the new hub: at least one GET and one PUT each after the kill.
    const { untilReady, afterReady } = report.hubRestart.leaseRequests;
    assert.ok(untilReady.total + afterReady.total >= 2 * CLUSTERS, JSON.stringify(report.hubRestart));
    assert.ok(report.leaseUpdate.count > 0);
    for (const pid of children) assert.equal(alive(pid), false, `process ${pid} started by the fleet is still running`);
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
});
