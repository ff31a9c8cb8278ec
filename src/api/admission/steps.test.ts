import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runAsync, runSync, wait, type Steps } from './steps.js';

function* addAnswers(a: number | Promise<number>, b: () => number | Promise<number>): Steps<number> {
  const x = yield* wait(a);
  const y = yield* wait(b());
  return x + y;
}

test('runSync: a rule with plain answers completes at once', () => {
  assert.equal(runSync(addAnswers(1, () => 2)), 3);
});

test('runSync: a promise answer is a wiring mistake, not a silent pass', () => {
  let finished = false;
  function* rule(): Steps<void> {
    try {
      yield* wait(Promise.resolve(true));
    } finally {
      finished = true;
    }
  }
  assert.throws(() => runSync(rule()), TypeError);
  assert.equal(finished, true, 'the rule is closed');
});

test('runAsync: awaits every answer in order, plain or promised', async () => {
  const order: string[] = [];
  const later = (n: number, tag: string): Promise<number> => new Promise((resolve) => setImmediate(() => {
    order.push(tag);
    resolve(n);
  }));
  assert.equal(await runAsync(addAnswers(later(1, 'a'), () => later(2, 'b'))), 3);
  assert.deepEqual(order, ['a', 'b']);
  assert.equal(await runAsync(addAnswers(4, () => 5)), 9);
});

test('runAsync: a rejection is thrown where the rule waited, so the rule can translate it', async () => {
  function* rule(): Steps<string> {
    try {
      yield* wait(Promise.reject(new Error('network down')));
      return 'unreachable';
    } catch (err) {
      return `refused: ${(err as Error).message}`;
    }
  }
  assert.equal(await runAsync(rule()), 'refused: network down');
  function* uncaught(): Steps<void> {
    yield* wait(Promise.reject(new Error('boom')));
  }
  await assert.rejects(runAsync(uncaught()), /boom/);
});
