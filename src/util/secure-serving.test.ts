import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SecureVersion } from 'node:tls';
import { parseListenAddress, ServingConfigError, startServing, type RunningServer } from './secure-serving.js';

/** What ./tls-flags.ts makes of empty --tls-min-version and --tls-cipher-suites. */
const TLS12 = { minVersion: 'TLSv1.2' as const };

const hello = (_req: unknown, res: { writeHead(c: number): { end(b: string): void } }): void => res.writeHead(200).end('hello');

function httpsGet(url: string, opts: { ca?: string; maxVersion?: SecureVersion; ciphers?: string } = {}): Promise<{ status: number; body: string; protocol: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, ca: opts.ca, ...(opts.maxVersion ? { maxVersion: opts.maxVersion } : {}), ...(opts.ciphers ? { ciphers: opts.ciphers } : {}), servername: 'localhost' }, (res) => {
      const protocol = (res.socket as { getProtocol?(): string | null }).getProtocol?.() ?? '';
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), protocol }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function serve(t: { after(fn: () => Promise<void>): void }, ...args: Parameters<typeof startServing>): Promise<RunningServer> {
  const s = await startServing(...args);
  t.after(() => s.close());
  return s;
}

test('should serve HTTPS with a certificate made in memory that its CA verifies, TLS 1.2 at least', async (t) => {
  const s = await serve(t, { listen: '127.0.0.1:0', tls: TLS12, handler: hello, componentName: 'test' });
  assert.match(s.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const ok = await httpsGet(s.url, { ca: s.caPem });
  assert.equal(ok.body, 'hello');
  // Without the CA the certificate is not trusted.
  await assert.rejects(httpsGet(s.url));
  // A TLS 1.1 client is refused.
  await assert.rejects(httpsGet(s.url, { ca: s.caPem, maxVersion: 'TLSv1.1' }));
});

test('should apply a TLS 1.3 minimum and a TLS 1.2 cipher list', async (t) => {
  const s13 = await serve(t, { listen: '127.0.0.1:0', tls: { minVersion: 'TLSv1.3' as const }, handler: hello });
  await assert.rejects(httpsGet(s13.url, { ca: s13.caPem, maxVersion: 'TLSv1.2' }));
  assert.equal((await httpsGet(s13.url, { ca: s13.caPem })).protocol, 'TLSv1.3');

  const s12 = await serve(t, { listen: '127.0.0.1:0', tls: { minVersion: 'TLSv1.2' as const, ciphers: 'TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256:ECDHE-ECDSA-AES256-GCM-SHA384' }, handler: hello });
  assert.equal((await httpsGet(s12.url, { ca: s12.caPem, maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' })).status, 200);
  // A TLS 1.2 client offering only a suite left out of the list is refused.
  await assert.rejects(httpsGet(s12.url, { ca: s12.caPem, maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256' }));
  // TLS 1.3 stays available, as in Go.
  assert.equal((await httpsGet(s12.url, { ca: s12.caPem })).protocol, 'TLSv1.3');
});

test('should serve the certificate files it is given', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'serving-'));
  t.after(async () => rmSync(dir, { recursive: true, force: true }));
  const { createSelfSignedCa } = await import('./x509.js');
  const now = Date.now();
  const ca = await createSelfSignedCa({ commonName: 'localhost', notBefore: new Date(now - 60_000), notAfter: new Date(now + 3600_000) });
  writeFileSync(join(dir, 'tls.crt'), ca.certPem);
  writeFileSync(join(dir, 'tls.key'), ca.keyPem);
  const s = await serve(t, { listen: '127.0.0.1:0', tls: { ...TLS12, certFile: join(dir, 'tls.crt'), keyFile: join(dir, 'tls.key') }, handler: hello });
  assert.equal(s.caPem, ca.certPem);
  await assert.rejects(startServing({ listen: '127.0.0.1:0', tls: { ...TLS12, certFile: join(dir, 'tls.crt') }, handler: hello }), ServingConfigError);
  await assert.rejects(startServing({ listen: '127.0.0.1:0', tls: { ...TLS12, certFile: join(dir, 'nope'), keyFile: join(dir, 'nope') }, handler: hello }), ServingConfigError);
});

test('should serve plain HTTP without tls, and answer 500 when the handler throws', async (t) => {
  const s = await serve(t, {
    listen: '127.0.0.1:0',
    handler: () => {
      throw new Error('boom');
    },
  });
  assert.match(s.url, /^http:\/\//);
  const status = await new Promise<number>((resolve, reject) => httpGet(s.url, (res) => (res.resume(), resolve(res.statusCode ?? 0))).on('error', reject));
  assert.equal(status, 500);
});

test('should parse listen addresses and refuse bad ones', () => {
  assert.deepEqual(parseListenAddress(':8443'), { host: '0.0.0.0', port: 8443 });
  assert.deepEqual(parseListenAddress('8443'), { host: '0.0.0.0', port: 8443 });
  assert.deepEqual(parseListenAddress('[::1]:0'), { host: '::1', port: 0 });
  assert.deepEqual(parseListenAddress('0.0.0.0:8443'), { host: '0.0.0.0', port: 8443 });
  for (const bad of ['', 'host', 'a:b', ':70000']) assert.throws(() => parseListenAddress(bad), ServingConfigError);
});
