import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Secret } from '../../api/core.js';
import { resourceTypes } from '../../client/resource-types.js';
import { fakeResourceClient } from '../register/fake-clients.js';
import type { Informer, InformerHandlers } from '../../client/types.js';
import { nullLogger } from '../../util/logger.js';
import { waitFor } from '../../../test/helpers/wait-for.js';
import { createHubKubeconfigSecretController, dumpSecret, writeSecretFiles } from './dump-secret.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

test('should dump the hub kubeconfig secret into files (TestDumpSecret)', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'ocm-ts-dump-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'hub-kubeconfig');
  const secrets = fakeResourceClient<Secret>(resourceTypes.secrets, 'ns');

  // no secret
  assert.deepEqual(await dumpSecret({ secrets, namespace: 'ns', name: 'hub', dir }), []);
  assert.throws(() => readdirSync(dir));

  // secret is created
  secrets.objects.set('hub', { metadata: { name: 'hub', namespace: 'ns' }, data: { kubeconfig: b64('kc'), 'tls.key': b64('key'), 'tls.crt': b64('crt') } });
  assert.deepEqual((await dumpSecret({ secrets, namespace: 'ns', name: 'hub', dir })).sort(), ['kubeconfig', 'tls.crt', 'tls.key']);
  assert.equal(readFileSync(join(dir, 'tls.key'), 'utf8'), 'key');
  assert.equal(statSync(join(dir, 'tls.key')).mode & 0o777, 0o600);
  assert.equal(statSync(dir).mode & 0o777, 0o700);

  // secret is updated: only changed files rewritten, removed keys' files kept
  secrets.objects.set('hub', { metadata: { name: 'hub', namespace: 'ns' }, data: { kubeconfig: b64('kc'), 'tls.crt': b64('crt2') } });
  assert.deepEqual(await dumpSecret({ secrets, namespace: 'ns', name: 'hub', dir }), ['tls.crt']);
  assert.equal(readFileSync(join(dir, 'tls.crt'), 'utf8'), 'crt2');
  assert.equal(readFileSync(join(dir, 'tls.key'), 'utf8'), 'key');

  // other errors
  secrets.failNext('get', 500);
  await assert.rejects(dumpSecret({ secrets, namespace: 'ns', name: 'hub', dir }), /^Error: unable to get secret ns\/hub : /);
});

test('should make an existing readable dir 0700 and every file in it 0600, rewritten or not', (t) => {
  const root = mkdtempSync(join(tmpdir(), 'ocm-ts-dump-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'hub-kubeconfig');
  mkdirSync(dir, { mode: 0o755 });
  chmodSync(dir, 0o755);
  // Left by an older version: the same bytes as the secret (no rewrite needed), and a stale key.
  writeFileSync(join(dir, 'tls.key'), 'key', { mode: 0o644 });
  writeFileSync(join(dir, 'old.key'), 'stale', { mode: 0o644 });
  chmodSync(join(dir, 'tls.key'), 0o644);
  chmodSync(join(dir, 'old.key'), 0o644);
  assert.deepEqual(writeSecretFiles({ 'tls.key': b64('key'), 'tls.crt': b64('crt') }, dir), ['tls.crt']);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  for (const f of ['tls.key', 'tls.crt', 'old.key']) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
});

test('HubKubeconfigSecretController writes the files from the watched cache once it synced, and again on each event', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'ocm-ts-dump-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dir = join(root, 'hub-kubeconfig');
  const cache = new Map<string, Secret>();
  let synced = false;
  let markSynced!: () => void;
  const whenSynced = new Promise<void>((r) => (markSynced = r));
  const handlers: Array<InformerHandlers<Secret>> = [];
  const informer: Informer<Secret> = {
    lister: { get: (name) => cache.get(name), list: () => [...cache.values()], size: () => cache.size, count: () => cache.size },
    addHandlers: (h) => void handlers.push(h),
    start: () => undefined,
    hasSynced: () => synced,
    waitForSync: () => whenSynced,
    state: () => (synced ? 'watching' : 'listing'),
  };
  const dumped: string[][] = [];
  const controller = createHubKubeconfigSecretController({
    secretInformer: informer, namespace: 'ns', name: 'hub', dir, resyncMs: 0, log: nullLogger(),
    onDumped: (files) => dumped.push(files),
  });
  const ac = new AbortController();
  const running = controller.run(ac.signal);
  t.after(async () => {
    ac.abort();
    await running;
  });
  cache.set('hub', { metadata: { name: 'hub', namespace: 'ns' }, data: { kubeconfig: b64('kc') } });
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(dumped, [], 'nothing before the cache synced');
  synced = true;
  markSynced();
  await waitFor(() => dumped.length === 1);
  assert.deepEqual(dumped, [['kubeconfig']]);
  const updated: Secret = { metadata: { name: 'hub', namespace: 'ns' }, data: { kubeconfig: b64('kc2') } };
  cache.set('hub', updated);
  for (const h of handlers) h.onUpdate?.(updated, updated);
  await waitFor(() => dumped.length === 2);
  assert.equal(readFileSync(join(dir, 'kubeconfig'), 'utf8'), 'kc2');
});
