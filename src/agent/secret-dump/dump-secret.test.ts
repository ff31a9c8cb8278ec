import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Secret } from '../../api/core.js';
import { resourceTypes } from '../../client/resource-types.js';
import { fakeResourceClient } from '../register/fake-clients.js';
import { dumpSecret, writeSecretFiles } from './dump-secret.js';

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
