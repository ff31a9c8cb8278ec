// `ocm-ts hub` as a user runs it (child process): embedded mode, bootstrap kubeconfig with least
// privilege, token reused on restart, bad flags exit 2.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ManagedCluster } from '../../src/api/cluster.js';
import { createKubeClient, isForbidden, resourceTypes } from '../../src/client/index.js';
import { waitFor } from '../helpers/wait-for.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

function run(args: string[]): { child: ChildProcess; out: () => string; err: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exit };
}

async function startHub(dir: string) {
  const p = run(['hub', '--data-dir', dir, '--apiserver-listen', '127.0.0.1:0', '--log-level', 'warn']);
  const line = await waitFor(() => p.out().split('\n').find((l) => l.startsWith('ocm-ts hub ready:')), 30_000, { message: p.err() });
  return { ...p, line };
}

test('embedded hub: ready line, 0600 kubeconfigs, bootstrap token limited to OCM bootstrap RBAC, reused on restart', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-hub-cli-'));
  dirs.push(dir);
  const first = await startHub(dir);
  try {
    assert.match(first.line, /apiserver https:\/\/127\.0\.0\.1:\d+ admin-kubeconfig .*admin\.kubeconfig bootstrap-kubeconfig .*bootstrap\.kubeconfig/);
    for (const f of ['admin.kubeconfig', 'bootstrap.kubeconfig', 'hub-controller.kubeconfig']) assert.equal((await stat(join(dir, f))).mode & 0o777, 0o600);
    const boot = createKubeClient({ kubeconfigPath: join(dir, 'bootstrap.kubeconfig') });
    try {
      // may create its ManagedCluster (the webhook-equivalent needs join on `default`, which the role grants)
      await waitFor(async () => boot.resource<ManagedCluster>(resourceTypes.managedClusters).create({ metadata: { name: 'cli1' }, spec: { hubAcceptsClient: false } }), 10_000);
      // but nothing beyond the bootstrap role
      await assert.rejects(boot.resource(resourceTypes.secrets, 'kube-system').list(), (e) => isForbidden(e));
      await assert.rejects(boot.resource<ManagedCluster>(resourceTypes.managedClusters).patch('cli1', 'merge', { spec: { hubAcceptsClient: true } }), (e) => isForbidden(e));
    } finally {
      boot.close();
    }
    // the controllers run: the new cluster gets the unreachable taint
    const admin = createKubeClient({ kubeconfigPath: join(dir, 'admin.kubeconfig') });
    try {
      await waitFor(async () => (await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('cli1')).spec?.taints?.length === 1, 10_000);
      // the controllers' own (least-privilege) identity is enough for the whole accept path
      await admin.resource<ManagedCluster>(resourceTypes.managedClusters).patch('cli1', 'merge', { spec: { hubAcceptsClient: true } });
      await waitFor(async () => (await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('cli1')).status?.conditions?.some((c) => c.reason === 'HubClusterAdminAccepted'), 10_000);
      await waitFor(() => admin.resource(resourceTypes.roleBindings, 'cli1').get('open-cluster-management:managedcluster:cli1:work'), 10_000);
      await waitFor(() => admin.resource(resourceTypes.managedClusterSets).get('global'), 10_000);
    } finally {
      admin.close();
    }
  } finally {
    first.child.kill('SIGTERM');
    assert.equal(await first.exit, 0);
  }
  const token1 = await readFile(join(dir, 'bootstrap.kubeconfig'), 'utf8');
  const second = await startHub(dir);
  try {
    const token2 = await readFile(join(dir, 'bootstrap.kubeconfig'), 'utf8');
    const tok = (s: string) => /token: (\S+)/.exec(s)?.[1];
    assert.ok(tok(token1));
    assert.equal(tok(token2), tok(token1));
  } finally {
    second.child.kill('SIGTERM');
    await second.exit;
  }
});

for (const [name, args, pattern] of [
  ['no mode', ['hub'], /either --data-dir .* or --kubeconfig/],
  ['bad labels', ['hub', '--kubeconfig', '/nonexistent', '--labels', 'a=b=c'], /unexpected label spec: a=b=c/],
  ['unknown gate', ['hub', '--kubeconfig', '/nonexistent', '--feature-gates', 'Nope=true'], /unrecognized feature gate: Nope/],
  ['bad ttl', ['hub', '--data-dir', '/tmp/x', '--bootstrap-token-ttl', 'soon'], /--bootstrap-token-ttl/],
  ['ttl without data dir', ['hub', '--kubeconfig', '/nonexistent', '--bootstrap-token-ttl', '1h'], /needs --data-dir/],
] as const) {
  test(`bad flags exit 2 with one line: ${name}`, async () => {
    const p = run([...args]);
    assert.equal(await p.exit, 2);
    assert.match(p.err(), pattern);
    assert.equal(p.err().trim().split('\n').length, 1);
  });
}
