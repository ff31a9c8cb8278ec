// Mistakes a user makes on the command line: bad flags and missing files give exactly one line on
// stderr and exit code 2 (never a hang, never a stack trace); --help exits 0.

import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cleanupAll, runCli, runCliToEnd, tempDir } from './cli-helpers.js';

after(cleanupAll);

// A command that should fail at once gets this long before it is killed (the test then fails on the
// exit code). Generous: starting the CLI takes ~0.6 s of CPU, several seconds on a loaded 2-core machine.
// (Flags already covered by test/hub/hub-command.test.ts, e.g. unknown feature gates, are not repeated.)
const KILL_AFTER_MS = 15_000;

async function expectUsageError(args: string[], pattern: RegExp): Promise<void> {
  const r = await runCliToEnd(args, KILL_AFTER_MS);
  assert.equal(r.code, 2, `expected exit code 2 within ${KILL_AFTER_MS} ms\n${r.describe}`);
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `exactly one line on stderr\n${r.describe}`);
  assert.match(lines[0]!, /^error: /, r.describe);
  assert.match(lines[0]!, pattern, r.describe);
  assert.equal(r.stdout, '', `nothing on stdout\n${r.describe}`);
}

describe('bad flags: one line on stderr, exit code 2', { concurrency: 3 }, () => {
  const cases: Array<[string, string[], RegExp]> = [
    ['unknown subcommand', ['nope'], /unknown command 'nope'/],
    ['unknown flag (hub)', ['hub', '--data-dir', '/tmp/ocm-ts-e2e-unused', '--nope'], /unknown option '--nope'/],
    ['bad --listen (apiserver)', ['apiserver', '--data-dir', '/tmp/ocm-ts-e2e-unused', '--listen', 'nonsense'], /--listen must be HOST:PORT/],
    ['bad --apiserver-listen (hub)', ['hub', '--data-dir', '/tmp/ocm-ts-e2e-unused', '--apiserver-listen', 'localhost'], /--apiserver-listen/],
    ['bad duration (hub)', ['hub', '--data-dir', '/tmp/ocm-ts-e2e-unused', '--bootstrap-token-ttl', 'soon'], /--bootstrap-token-ttl/],
    ['bad duration (agent)', ['agent', '--cluster-healthcheck-period', 'soon'], /invalid duration "soon"/],
    ['bad duration (accept)', ['accept', 'c1', '--timeout', 'soon'], /--timeout/],
    ['--clusters 0', ['demo', '--clusters', '0'], /--clusters must be a whole number from 1 to 50, got "0"/],
    ['bad --log-level', ['apiserver', '--data-dir', '/tmp/ocm-ts-e2e-unused', '--log-level', 'loud'], /--log-level/],
    ['unknown resource (get)', ['get', 'nodes'], /unknown resource "nodes"/],
    ['accept without a cluster', ['accept'], /missing required argument/],
  ];
  for (const [name, args, pattern] of cases) test(name, () => expectUsageError(args, pattern));
});

describe('missing files: one line on stderr, exit code 2', { concurrency: 3 }, () => {
  test('accept --kubeconfig /nonexistent', () => expectUsageError(['accept', 'c1', '--kubeconfig', '/nonexistent'], /\/nonexistent/));
  test('get clusters --kubeconfig /nonexistent', () => expectUsageError(['get', 'clusters', '--kubeconfig', '/nonexistent'], /\/nonexistent/));
  test('get clusters with no kubeconfig anywhere', async () => {
    // HOME is an empty dir and KUBECONFIG is unset: the error says how to fix it.
    const home = await tempDir('home');
    const p = runCli(['get', 'clusters'], { env: { HOME: home, KUBECONFIG: '' } });
    const timer = setTimeout(() => p.child.kill('SIGKILL'), KILL_AFTER_MS);
    const { code } = await p.exited;
    clearTimeout(timer);
    assert.equal(code, 2, p.describe());
    assert.equal(p.stderr().trimEnd().split('\n').length, 1, p.describe());
    assert.match(p.stderr(), /^error: .*--kubeconfig/, p.describe());
  });
  test('agent --kubeconfig /nonexistent', () =>
    expectUsageError(['agent', '--kubeconfig', '/nonexistent', '--cluster-name', 'c1', '--bootstrap-kubeconfig', '/nonexistent', '--log-level', 'error'], /\/nonexistent/));
  test('agent --bootstrap-kubeconfig /nonexistent', async () => {
    const dir = await tempDir('agent-missing');
    // A syntactically valid management kubeconfig, so only the bootstrap kubeconfig is missing.
    const kc = join(dir, 'spoke.kubeconfig');
    await writeFile(kc, 'apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: x}}]\ncontexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n');
    await expectUsageError(['agent', '--kubeconfig', kc, '--cluster-name', 'c1', '--bootstrap-kubeconfig', '/nonexistent', '--log-level', 'error'], /\/nonexistent/);
  });
  test('hub --kubeconfig /nonexistent', () => expectUsageError(['hub', '--kubeconfig', '/nonexistent', '--log-level', 'error'], /\/nonexistent/));
});

test('--help exits 0 and lists the subcommands', async () => {
  const r = await runCliToEnd(['--help'], KILL_AFTER_MS);
  assert.equal(r.code, 0, r.describe);
  for (const cmd of ['apiserver', 'hub', 'agent', 'accept', 'get', 'demo']) assert.match(r.stdout, new RegExp(`^\\s+${cmd}\\b`, 'm'), r.stdout);
  assert.equal(r.stderr, '');
});

test('agent --help exits 0 and shows OCM flag names', async () => {
  const r = await runCliToEnd(['agent', '--help'], KILL_AFTER_MS);
  assert.equal(r.code, 0, r.describe);
  for (const flag of ['--kubeconfig', '--bootstrap-kubeconfig', '--hub-kubeconfig-dir', '--cluster-healthcheck-period']) assert.match(r.stdout, new RegExp(flag));
});
