import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger, formatTraceLine, isLogLevel, microTime } from './logger.js';

test('microTime keeps microseconds of an epoch time in milliseconds', () => {
  assert.equal(microTime(Date.UTC(2026, 11, 3, 16, 50, 49, 123) + 0.4567), '2026-12-03T16:50:49.123456Z');
  assert.equal(microTime(Date.UTC(2026, 11, 3, 0, 0, 0, 5)), '2026-12-03T00:00:00.005000Z');
});

test('formatTraceLine: time, gap, level, message, then fields as k=v', () => {
  const line = formatTraceLine(Date.UTC(2026, 11, 3, 0, 0, 0, 1), 12.3456, 'info', 'CSR created', { name: 'c1-x', durationMs: 1.234, n: 3, err: new Error('boom'), skip: undefined, text: 'a b' });
  assert.equal(line, '2026-12-03T00:00:00.001000Z +  12.346ms info  CSR created name=c1-x durationMs=1.23 n=3 err={"message":"boom"} text="a b"');
});

test("level 'trace' writes debug lines too, each with the gap since the process's previous line", () => {
  const lines: string[] = [];
  let t = 1_000;
  const log = createLogger({ level: 'trace', write: (l) => lines.push(l), hrNow: () => (t += 2.5), fields: { component: 'agent' } });
  log.debug('first');
  log.child({ controller: 'c' }).info('second', { key: 'k' });
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, / \+ {3}0\.000ms debug first component=agent$/);
  assert.match(lines[1]!, / \+ {3}2\.500ms info {2}second component=agent controller=c key=k$/);
});

test('isLogLevel accepts the five levels only', () => {
  for (const l of ['trace', 'debug', 'info', 'warn', 'error']) assert.ok(isLogLevel(l));
  for (const l of ['loud', '', undefined, 3]) assert.ok(!isLogLevel(l));
});
