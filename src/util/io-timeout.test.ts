import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { test } from 'node:test';
import { setIoTimeout } from './io-timeout.js';

/** Holds the event loop, as a long synchronous job or a starved process would. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy on purpose
  }
}

async function socketPair(t: { after(fn: () => unknown): void }): Promise<{ client: Socket; server: Socket }> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const accepted = once(srv, 'connection');
  const client = connect((srv.address() as AddressInfo).port, '127.0.0.1');
  await once(client, 'connect');
  const [server] = (await accepted) as [Socket];
  t.after(() => {
    client.destroy();
    server.destroy();
    srv.close();
  });
  return { client, server };
}

test('an answer that arrived while the process was stalled wins over a deadline that fell due meanwhile', async (t) => {
  const { client, server } = await socketPair(t);
  const outcome: string[] = [];
  const deadline = setIoTimeout(() => outcome.push('timeout'), 20);
  client.once('data', () => {
    outcome.push('answer');
    deadline.clear();
  });
  server.write('pong');
  stall(60);
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(outcome, ['answer']);
});

test('a deadline fires when nothing arrived, and never once cleared', async () => {
  const fired: string[] = [];
  setIoTimeout(() => fired.push('due'), 5);
  const cleared = setIoTimeout(() => fired.push('cleared'), 5);
  cleared.clear();
  // Cleared after it fell due but before it fired: still never fires. The clearing timer has the
  // same duration and is made just after, so Node runs it in the same timers phase right after the
  // deadline's own timer, whatever the machine's speed: after the deadline fell due, before the
  // immediate that would fire it.
  const late = setIoTimeout(() => fired.push('late'), 5);
  setTimeout(() => late.clear(), 5);
  stall(20);
  await new Promise((r) => setTimeout(r, 30));
  assert.deepEqual(fired, ['due']);
  cleared.clear();
});
