import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConnectionTable, defaultConnectionLimits, resolveConnectionLimits, softDescriptorLimit } from './connection-limits.js';

const PROC_LIMITS = `Limit                     Soft Limit           Hard Limit           Units
Max cpu time              unlimited            unlimited            seconds
Max open files            20000                1048576              files
Max locked memory         8388608              8388608              bytes
`;

describe('softDescriptorLimit', () => {
  const cases: { name: string; input: () => string; expected: number | undefined }[] = [
    { name: 'reads the soft limit', input: () => PROC_LIMITS, expected: 20000 },
    { name: 'unlimited', input: () => 'Max open files            unlimited            unlimited            files\n', expected: Number.POSITIVE_INFINITY },
    { name: 'no such line', input: () => 'Max cpu time unlimited unlimited seconds\n', expected: undefined },
    { name: 'unreadable (no /proc)', input: () => { throw new Error('ENOENT'); }, expected: undefined },
  ];
  for (const c of cases) it(`should handle: ${c.name}`, () => assert.equal(softDescriptorLimit(c.input), c.expected));
});

describe('defaultConnectionLimits', () => {
  it('should keep the global cap below the descriptor limit, with room for the rest of the process', () => {
    for (const fds of [256, 1024, 20000, 1048576]) {
      const l = defaultConnectionLimits(fds);
      assert.ok(l.maxConnections <= fds - 128, `${fds}: ${l.maxConnections}`);
      assert.ok(l.maxConnections >= fds / 2, `${fds}: ${l.maxConnections}`);
      assert.ok(l.maxConnectionsPerAddress <= l.maxConnections);
    }
  });
  it('should leave loopback clients room for a thousand watches from one address', () => {
    assert.ok(defaultConnectionLimits(20000).maxConnectionsPerAddress >= 1024);
    assert.ok(defaultConnectionLimits(undefined).maxConnectionsPerAddress >= 1024);
  });
  it('should let one HTTP/2 connection carry a thousand streams, as kube-apiserver does', () => {
    assert.equal(defaultConnectionLimits(20000).maxStreamsPerConnection, 1000);
  });
  it('should stay finite when the limit is unlimited', () => {
    assert.ok(Number.isSafeInteger(defaultConnectionLimits(Number.POSITIVE_INFINITY).maxConnections));
  });
});

describe('resolveConnectionLimits', () => {
  it('should apply overrides over the defaults and freeze the result', () => {
    const l = resolveConnectionLimits({ maxConnections: 10, headersTimeoutMs: 200 }, 1024);
    assert.equal(l.maxConnections, 10);
    assert.equal(l.headersTimeoutMs, 200);
    assert.equal(l.handshakeTimeoutMs, 10_000);
    assert.ok(Object.isFrozen(l));
  });
  it('should name every invalid field', () => {
    assert.throws(() => resolveConnectionLimits({ maxConnections: 0, handshakeTimeoutMs: 1.5 }, 1024), /maxConnections.*handshakeTimeoutMs/);
  });
});

describe('ConnectionTable', () => {
  it('should refuse nothing below the caps', () => {
    const t = new ConnectionTable<string>({ maxConnections: 3, maxConnectionsPerAddress: 3 });
    assert.deepEqual(t.open('a', '10.0.0.1'), { admitted: true });
    assert.deepEqual(t.open('b', '10.0.0.2'), { admitted: true });
    assert.equal(t.size, 2);
  });

  it('should displace the oldest connection still in its handshake before a silent or idle one', () => {
    const t = new ConnectionTable<string>({ maxConnections: 3, maxConnectionsPerAddress: 10 });
    t.open('idle', 'x');
    t.secured('idle', false);
    t.requestStarted('idle');
    t.requestFinished('idle');
    t.open('silent', 'x');
    t.secured('silent', false);
    t.open('handshaking', 'x');
    assert.deepEqual(t.open('new1', 'x'), { admitted: true, displaced: 'handshaking' });
    // new1 is itself still handshaking, so it goes next.
    assert.deepEqual(t.open('new2', 'x'), { admitted: true, displaced: 'new1' });
    t.secured('new2', false);
    assert.deepEqual(t.open('new3', 'x'), { admitted: true, displaced: 'silent' });
    t.secured('new3', true);
    assert.deepEqual(t.open('new4', 'x'), { admitted: true, displaced: 'new2' });
    t.requestStarted('new4');
    assert.deepEqual(t.open('new5', 'x'), { admitted: true, displaced: 'idle' });
    assert.equal(t.size, 3);
  });

  it('should never displace a connection with a request in flight or a verified certificate', () => {
    const t = new ConnectionTable<string>({ maxConnections: 2, maxConnectionsPerAddress: 10 });
    t.open('watch', 'x');
    t.secured('watch', false);
    t.requestStarted('watch');
    t.open('agent', 'y');
    t.secured('agent', true);
    assert.deepEqual(t.open('new', 'z'), { admitted: false, limit: 'global' });
    t.requestFinished('watch');
    assert.deepEqual(t.open('new', 'z'), { admitted: true, displaced: 'watch' });
  });

  it('should cap one address and displace only that address\'s connections', () => {
    const t = new ConnectionTable<string>({ maxConnections: 10, maxConnectionsPerAddress: 2 });
    t.open('other', 'b');
    t.open('a1', 'a');
    t.open('a2', 'a');
    assert.deepEqual(t.open('a3', 'a'), { admitted: true, displaced: 'a1' });
    t.requestStarted('a2');
    t.requestStarted('a3');
    assert.deepEqual(t.open('a4', 'a'), { admitted: false, limit: 'address' });
    assert.equal(t.countFrom('a'), 2);
    assert.equal(t.countFrom('b'), 1);
  });

  it('should forget closed connections (idempotently) and ignore events for unknown ones', () => {
    const t = new ConnectionTable<string>({ maxConnections: 1, maxConnectionsPerAddress: 1 });
    t.open('a', 'x');
    t.requestStarted('a');
    assert.equal(t.busy('a'), true);
    t.closed('a');
    t.closed('a');
    t.secured('a', true);
    t.requestFinished('a');
    assert.equal(t.size, 0);
    assert.equal(t.countFrom('x'), 0);
    assert.deepEqual(t.open('b', 'x'), { admitted: true });
  });
});
