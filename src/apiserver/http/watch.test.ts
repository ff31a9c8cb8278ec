import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, constants, createSecureServer, type ClientHttp2Session, type Http2SecureServer, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { KubeObject, WatchEventType } from '../../api/meta.js';
import { nullLogger } from '../../util/logger.js';
import { createServingCertPair } from '../../util/native-serving-cert.js';
import type { Store, StoreEvent, WatchOptions } from '../storage/types.js';
import { serveWatch, type WatchEncoder } from './watch.js';

const MAX_BUFFERED = 256 * 1024;
const PAD = 'x'.repeat(32 * 1024);

const encoder: WatchEncoder = {
  line(type: WatchEventType, obj: KubeObject) {
    const line = Buffer.from(`${JSON.stringify({ type, object: obj })}\n`);
    return { line, chunk: Buffer.concat([Buffer.from(`${line.length.toString(16)}\r\n`), line, Buffer.from('\r\n')]) };
  },
  bookmark: (revision) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { resourceVersion: String(revision) } }),
};

/** A store holding one watch subscription whose events the test sends by hand. */
function fakeStore(): { store: Store; onEvent: () => WatchOptions['onEvent'] | undefined } {
  let onEvent: WatchOptions['onEvent'] | undefined;
  const store = {
    currentRevision: () => 1,
    compactedRevision: () => 0,
    watch: (_prefix: string, opts: WatchOptions) => {
      onEvent = opts.onEvent;
      return { close: () => undefined };
    },
  };
  return { store: store as unknown as Store, onEvent: () => onEvent };
}

describe('serveWatch over HTTP/2', () => {
  let server: Http2SecureServer;
  let session: ClientHttp2Session;
  let ends: string[];
  let store: ReturnType<typeof fakeStore>;
  before(async () => {
    const pair = createServingCertPair({ commonName: 'watch-test', names: ['localhost'], notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3_600_000) });
    server = createSecureServer({ key: pair.keyPem, cert: pair.certPem });
    server.on('request', (req: unknown, res: Http2ServerResponse) => {
      if ((req as IncomingMessage).url !== '/watch') {
        res.end('ok');
        return;
      }
      serveWatch(res as unknown as ServerResponse, {
        store: store.store, prefix: '/x/', filter: () => true, resourceVersion: 1, allowBookmarks: false,
        timeoutMs: 60_000, bookmarkIntervalMs: 60_000, futureWaitMs: 1000, encoder, log: nullLogger(),
        maxBufferedBytes: MAX_BUFFERED, onEnd: (reason) => ends.push(reason),
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    session = connect(`https://localhost:${(server.address() as AddressInfo).port}`, { ca: pair.caPem });
  });
  after(async () => {
    session.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('should write events on the stream without connection-specific headers, and reset a watch whose client does not read', async () => {
    ends = [];
    store = fakeStore();
    const stream = session.request({ ':path': '/watch' });
    stream.end();
    const headers = await new Promise<Record<string, unknown>>((resolve) => stream.once('response', resolve));
    assert.equal(headers[':status'], 200);
    assert.equal(headers['content-type'], 'application/json');
    const closed = new Promise<number>((resolve) => stream.once('close', () => resolve(stream.rstCode ?? -1)));
    stream.on('error', () => undefined);
    // The client never reads: flow control stops the stream, its bytes pile up on the server.
    const onEvent = store.onEvent();
    assert.ok(onEvent);
    for (let rev = 2; rev < 200 && ends.length === 0; rev++) {
      const ev: StoreEvent = { type: 'ADDED', key: `/x/cm-${rev}`, revision: rev, object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${rev}` }, data: { PAD } } };
      void onEvent(ev);
      await new Promise((r) => setImmediate(r));
    }
    assert.deepEqual(ends, ['slow']);
    assert.equal(await closed, constants.NGHTTP2_CANCEL);
    // Only that stream is gone: the connection serves the next request.
    const other = session.request({ ':path': '/other' });
    other.end();
    const body = await new Promise<string>((resolve) => {
      let text = '';
      other.setEncoding('utf8');
      other.on('data', (c: string) => (text += c));
      other.on('end', () => resolve(text));
    });
    assert.equal(body, 'ok');
  });
});
