import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createManualClock } from '../../client/manual-clock.js';
import { watchFilesForChange } from './file-change-watch.js';

test('should report the first file whose content changed, once, and only on a poll', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const a = join(dir, 'a');
  const missing = join(dir, 'missing');
  writeFileSync(a, 'one');
  const clock = createManualClock();
  const changes: string[] = [];
  const unreadable: string[] = [];
  const ctl = new AbortController();
  watchFilesForChange({ files: [a, missing], pollMs: 10_000, clock, onChange: (f) => changes.push(f), onUnreadable: (f) => unreadable.push(f) }, ctl.signal);
  assert.deepEqual(unreadable, [missing]);
  clock.advance(10_000);
  assert.deepEqual(changes, [], 'same content: no change');
  writeFileSync(a, 'one');
  clock.advance(10_000);
  assert.deepEqual(changes, [], 'rewritten with the same content: no change');
  writeFileSync(a, 'two');
  clock.advance(9_999);
  assert.deepEqual(changes, [], 'not polled yet');
  clock.advance(1);
  assert.deepEqual(changes, [a]);
  clock.advance(60_000);
  assert.deepEqual(changes, [a], 'reported once');
  assert.equal(clock.pending(), 0);
});

test('should count a file appearing as a change, and stop polling when aborted', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'watch-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const f = join(dir, 'later');
  const clock = createManualClock();
  const changes: string[] = [];
  const ctl = new AbortController();
  watchFilesForChange({ files: [f], pollMs: 1000, clock, onChange: (x) => changes.push(x) }, ctl.signal);
  writeFileSync(f, 'x');
  clock.advance(1000);
  assert.deepEqual(changes, [f]);

  const ctl2 = new AbortController();
  watchFilesForChange({ files: [f], pollMs: 1000, clock, onChange: (x) => changes.push(x) }, ctl2.signal);
  ctl2.abort();
  writeFileSync(f, 'y');
  clock.advance(5000);
  assert.deepEqual(changes, [f]);
  assert.equal(clock.pending(), 0);
});
