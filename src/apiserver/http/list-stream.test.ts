import assert from 'node:assert/strict';
import { createServer, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { streamJsonArray } from './list-stream.js';

async function* batchesOf<T>(batches: T[][]): AsyncGenerator<T[]> {
  for (const b of batches) yield b;
}

/** Runs `serve` behind a real HTTP server and returns the body the client read. */
async function fetchBody(serve: (res: ServerResponse) => Promise<void>): Promise<{ body: string; headers: Record<string, unknown> }> {
  const server = createServer((_req, res) => void serve(res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    return await new Promise((resolve, reject) => {
      request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      }).on('error', reject).end();
    });
  } finally {
    server.close();
  }
}

describe('streamJsonArray', () => {
  const head = { apiVersion: 'v1', kind: 'ConfigMapList', metadata: { resourceVersion: '7', continue: 'x' } };
  const item = (i: number): unknown => ({ metadata: { name: `cm-${i}`, labels: { a: 'b' } }, data: { k: 'é'.repeat(i % 5), n: [i, { deep: null }] } });
  const cases: { name: string; batches: unknown[][] }[] = [
    { name: 'no items', batches: [] },
    { name: 'empty batches', batches: [[], []] },
    { name: 'one item', batches: [[item(1)]] },
    { name: 'several batches', batches: [[item(1), item(2)], [], [item(3)], Array.from({ length: 50 }, (_, i) => item(i))] },
  ];
  for (const c of cases) {
    for (const pretty of [false, true]) {
      it(`should write what JSON.stringify would (${c.name}, pretty=${pretty})`, async () => {
        const { body, headers } = await fetchBody((res) =>
          streamJsonArray(res, { head, arrayKey: 'items', elements: batchesOf(c.batches), pretty }, { 'Content-Type': 'application/json' }));
        const whole = { ...head, items: c.batches.flat() };
        assert.equal(body, pretty ? `${JSON.stringify(whole, null, 2)}\n` : JSON.stringify(whole));
        assert.equal(headers['transfer-encoding'], 'chunked');
      });
    }
  }

  it('should stop reading when the client goes away', async () => {
    let produced = 0;
    async function* endless(): AsyncGenerator<unknown[]> {
      for (;;) {
        produced++;
        yield [{ pad: 'x'.repeat(64 * 1024) }];
      }
    }
    const server = createServer((_req, res) => void streamJsonArray(res, { head: { kind: 'L' }, arrayKey: 'items', elements: endless(), pretty: false }, {}).then(() => server.emit('streamDone')));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const done = new Promise((r) => server.once('streamDone', r));
    const req = request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, path: '/' }, (res) => {
      res.once('data', () => req.destroy());
    });
    req.on('error', () => undefined).end();
    await done;
    server.close();
    assert.ok(produced < 1000, `produced ${produced} batches`);
  });
});
