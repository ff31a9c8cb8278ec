// `ocm-ts webhook` and `ocm-ts hub --webhook-listen` as a user runs them (child processes) against
// an embedded API server: the ready line, a generated certificate whose CA is written out, a review
// answered over HTTPS, a clean stop on SIGTERM, and bad flags refused with exit code 2.

import 'reflect-metadata';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HUB_CRD_NAMES } from '../../src/api/crds.js';
import { WEBHOOK_PATHS } from '../../src/hub/webhook/review-handlers.js';
import { startOcmApiServer, type OcmApiServer } from '../helpers/ocm-api-server.js';
import { waitFor } from '../helpers/wait-for.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
let api: OcmApiServer;
let dir: string;

before(async () => {
  api = await startOcmApiServer({ crds: HUB_CRD_NAMES });
  dir = await mkdtemp(join(tmpdir(), 'ocm-ts-webhook-cli-'));
});
after(async () => {
  await api?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function run(args: string[]) {
  const env = { ...process.env };
  delete env.KUBERNETES_SERVICE_HOST;
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, out: () => out, err: () => err, exit };
}

function mutateReview(url: string, caPem: string): Promise<{ allowed: boolean; patch: string }> {
  const body = JSON.stringify({
    apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
    request: {
      uid: 'u1', operation: 'CREATE', resource: { group: 'cluster.open-cluster-management.io', version: 'v1', resource: 'managedclusters' },
      userInfo: { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers'] },
      object: { apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'c1' }, spec: {} },
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(new URL(WEBHOOK_PATHS.mutateManagedCluster, url), { method: 'POST', ca: caPem, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => {
        try {
          resolve((JSON.parse(text) as { response: { allowed: boolean; patch: string } }).response);
        } catch (e) {
          reject(e instanceof Error ? e : new Error(String(e)));
        }
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

const patchPaths = (patch: string): string[] => (JSON.parse(Buffer.from(patch, 'base64').toString('utf8')) as Array<{ path: string }>).map((o) => o.path);

test('ocm-ts webhook: ready line, CA file, a review answered, clean stop', async () => {
  const caFile = join(dir, 'webhook-ca.crt');
  const p = run(['webhook', '--kubeconfig', api.server.adminKubeconfigPath, '--listen', '127.0.0.1:0', '--write-ca-file', caFile, '--log-level', 'warn']);
  try {
    const line = await waitFor(() => p.out().split('\n').find((l) => l.startsWith('ocm-ts webhook ready:')), 30_000, { message: p.err() });
    const url = /(https:\/\/127\.0\.0\.1:\d+)/.exec(line)![1]!;
    assert.match(line, new RegExp(`ca-file ${caFile.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
    const r = await mutateReview(url, await readFile(caFile, 'utf8'));
    assert.equal(r.allowed, true);
    assert.deepEqual(patchPaths(r.patch), ['/metadata/labels', '/spec/leaseDurationSeconds']);
  } finally {
    p.child.kill('SIGTERM');
  }
  assert.equal(await p.exit, 0, p.err());
});

test('ocm-ts hub --kubeconfig --webhook-listen: the controllers and the webhook in one process', async () => {
  const caFile = join(dir, 'hub-webhook-ca.crt');
  const p = run(['hub', '--kubeconfig', api.server.adminKubeconfigPath, '--webhook-listen', '127.0.0.1:0', '--write-ca-file', caFile,
    '--feature-gates', 'DefaultClusterSet=false', '--listen', '127.0.0.1:0', '--disable-leader-election', '--log-level', 'warn']);
  try {
    const line = await waitFor(() => p.out().split('\n').find((l) => l.startsWith('ocm-ts hub ready:')), 30_000, { message: p.err() });
    const url = /webhook (https:\/\/127\.0\.0\.1:\d+)/.exec(line)![1]!;
    const r = await mutateReview(url, await readFile(caFile, 'utf8'));
    assert.equal(r.allowed, true);
    assert.deepEqual(patchPaths(r.patch), ['/spec/leaseDurationSeconds'], 'the hub\'s feature gates reach the webhook');
  } finally {
    p.child.kill('SIGTERM');
  }
  assert.equal(await p.exit, 0, p.err());
});

// Every webhook flag rule has a unit test beside the command; these check the exit code and the hub's flags.
const badFlags: Array<[string, string[], RegExp]> = [
  ['listen', ['webhook', '--kubeconfig', 'K', '--listen', 'nope'], /--listen must be HOST:PORT/],
  ['hub webhook with an embedded server', ['hub', '--data-dir', '/tmp/x', '--webhook-listen', '127.0.0.1:0'], /--webhook-listen needs --kubeconfig or a pod/],
  ['hub certificate flags without the webhook', ['hub', '--kubeconfig', 'K', '--write-ca-file', 'x'], /--write-ca-file needs --webhook-listen/],
];

test('bad flags exit 2 with one line', async () => {
  await Promise.all(badFlags.map(async ([name, args, message]) => {
    const p = run(args.map((a) => (a === 'K' ? api.server.adminKubeconfigPath : a)));
    assert.equal(await p.exit, 2, `${name}: ${p.err()}`);
    assert.match(p.err(), message, name);
    assert.equal(p.err().trim().split('\n').length, 1, `${name}: one line`);
  }));
});
