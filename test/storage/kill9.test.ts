// Durability: every write the store acknowledged before a SIGKILL is in the database afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../src/apiserver/storage/sqlite-store.js';

for (const durability of ['group', 'per-commit'] as const) {
  test(`should keep every acknowledged write after kill -9 of the writer (${durability} durability)`, { timeout: 60_000 }, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'ocm-kill9-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'state.db');
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./kill9-writer.ts', import.meta.url).pathname, path, durability], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, sig) => resolve(sig)));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        // kill mid-stream, once a good number of writes have been acknowledged
        if ((out.match(/\nACK /g)?.length ?? 0) >= 200 && child.exitCode === null && !child.killed) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.on('exit', () => reject(new Error(`writer exited early: ${err}`)));
    });
    assert.equal(await exited, 'SIGKILL');

    const acks = out
      .split('\n')
      .slice(0, -1) // only complete lines: the last piece may be cut by the kill
      .filter((l) => l.startsWith('ACK '))
      .map((l) => {
        const [, rev, key, data] = l.split(' ');
        return { rev: Number(rev), key: key!, data };
      });
    assert.ok(acks.length >= 200);
    const store = openSqliteStore({ path });
    try {
      const last = acks[acks.length - 1]!.rev;
      assert.ok(store.currentRevision() >= last, `current ${store.currentRevision()} < acknowledged ${last}`);
      // every acknowledged write is in the log, at its revision, with the data that was written
      for (const a of acks) {
        const items = store.list(a.key, { atRevision: a.rev }).items;
        if (a.data === 'DELETED') {
          assert.deepEqual(items, [], `${a.key} deleted at ${a.rev}`);
        } else {
          assert.equal(items.length, 1, `${a.key} at ${a.rev}`);
          assert.equal(items[0]!.revision, a.rev);
          assert.deepEqual(items[0]!.object.data, { i: a.data });
        }
      }
      // and the revisions are contiguous from 1 (nothing acknowledged went missing in between)
      const revs = acks.map((a) => a.rev);
      assert.deepEqual(revs, Array.from({ length: revs.length }, (_, i) => i + 1));
    } finally {
      store.close();
    }
  });
}
