// Bad input (spoke-agent.md §3, §5.2): OCM's validation failures stop the agent with exit code 1 and
// OCM's message; broken or missing kubeconfigs and an unreachable hub fail the start, which is logged
// and retried with backoff (in-process restart), never leaving a credential behind.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { captureLog } from '../../helpers/test-log.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startAgentEnv } from './fixture.js';

test('should exit 1 with OCM messages on validation failures, and retry broken kubeconfigs and unreachable hubs', async (t) => {
  const env = await startAgentEnv(t);

  await t.test('invalid cluster name → exit 1', async () => {
    const { log, lines } = captureLog();
    const agent = await env.startAgent({ clusterName: 'test.cluster' }, log);
    assert.equal(await agent.done, 1);
    assert.equal(agent.status().lastError, 'metadata.name format is not correct: must not contain dots');
    assert.ok(lines.some((l) => l.msg === 'Error during Validating'));
  });

  await t.test('short client certificate expiration → exit 1', async () => {
    const agent = await env.startAgent({ clientCertExpirationSeconds: 600 });
    assert.equal(await agent.done, 1);
    assert.equal(agent.status().lastError, 'client certificate expiration seconds must greater or qual to 3600');
  });

  await t.test('missing bootstrap kubeconfig file → logged and retried', async () => {
    const { log, lines } = captureLog();
    const agent = await env.startAgent({ bootstrapKubeconfig: join(env.dir, 'missing.kubeconfig'), clusterName: 'cluster-missing' }, log);
    await waitFor(() => agent.status().runs >= 3, 10_000, { message: 'retried' });
    assert.match(agent.status().lastError ?? '', /unable to load kubeconfig from file ".*missing.kubeconfig"/);
    assert.ok(lines.some((l) => l.msg === 'registration agent start failed'));
    assert.equal(await agent.stop(), 0);
  });

  await t.test('malformed bootstrap kubeconfig → logged and retried', async () => {
    const bad = join(env.dir, 'bad.kubeconfig');
    await writeFile(bad, 'apiVersion: v1\nkind: Config\ncurrent-context: nowhere\n');
    const agent = await env.startAgent({ bootstrapKubeconfig: bad, clusterName: 'cluster-bad' });
    await waitFor(() => agent.status().runs >= 2, 10_000, { message: 'retried' });
    assert.equal(agent.status().lastError, 'kubeconfig does not contains context: nowhere');
    assert.equal(await agent.stop(), 0);
  });

  await t.test('unreachable hub → bootstrap never completes, restarts after the cache-sync timeout', async () => {
    const unreachable = join(env.dir, 'unreachable.kubeconfig');
    const text = (await import('node:fs')).readFileSync(env.bootstrapKubeconfigPath, 'utf8').replace(/server: https:\/\/127\.0\.0\.1:\d+/, 'server: https://127.0.0.1:1');
    await writeFile(unreachable, text);
    const agent = await env.startAgent({ bootstrapKubeconfig: unreachable, clusterName: 'cluster-unreachable', timings: { cacheSyncTimeoutMs: 300 } as never });
    await waitFor(() => agent.status().runs >= 2, 10_000, { message: 'restarted' });
    assert.equal(agent.status().phase === 'main', false);
    assert.equal(await env.hubSecret(), undefined);
    assert.equal(await agent.stop(), 0);
  });

  await t.test('CLI: a bad flag exits 2 with one line; a validation failure exits 1 with OCM message', async () => {
    const run = (args: string[]): Promise<{ code: number | null; stderr: string }> =>
      new Promise((resolve) => {
        const p = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'agent', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        p.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        p.on('close', (code) => resolve({ code, stderr }));
      });
    const [bad, invalid] = await Promise.all([
      run(['--max-custom-cluster-claims', 'many']),
      run([`--kubeconfig=${env.spoke.adminKubeconfigPath}`, `--bootstrap_kubeconfig=${env.bootstrapKubeconfigPath}`, `--hub-kubeconfig-dir=${join(env.dir, 'cli')}`, '--cluster_name=test.cluster', '--agent-id=a1']),
    ]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.equal(bad.stderr.trim().split('\n').length, 1, bad.stderr);
    assert.match(bad.stderr, /max-custom-cluster-claims/);
    assert.equal(invalid.code, 1, invalid.stderr);
    assert.match(invalid.stderr, /error: metadata.name format is not correct: must not contain dots/);
  });
});
