import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nullLogger } from '../../util/logger.js';
import { preconnectHub } from './preconnect-hub.js';

/** A TCP listener that counts connections (no TLS: the handshake fails, which a preconnect ignores). */
async function listener(t: { after(fn: () => unknown): void }): Promise<{ url: string; connections: () => number }> {
  let n = 0;
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    n++;
    sockets.push(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => n };
}

function kubeconfig(t: { after(fn: () => unknown): void }, server: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'preconnect-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'kubeconfig');
  writeFileSync(file, [
    'apiVersion: v1', 'kind: Config', 'current-context: c',
    'clusters: [{name: c, cluster: {server: "' + server + '", insecure-skip-tls-verify: true}}]',
    'users: [{name: u, user: {token: t}}]',
    'contexts: [{name: c, context: {cluster: c, user: u}}]',
  ].join('\n'));
  return file;
}

const until = async (cond: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
  return cond();
};

test('should open the connection after the work of the current turn, and not at all once released before', async (t) => {
  const l = await listener(t);
  const file = kubeconfig(t, l.url);
  const released = preconnectHub(file, 'test', nullLogger(), { afterCurrentWork: true });
  released();
  released();
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(l.connections(), 0, 'released before it opened: no connection');
  const release = preconnectHub(file, 'test', nullLogger(), { afterCurrentWork: true });
  t.after(release);
  assert.ok(await until(() => l.connections() === 1, 5000), 'opened in a later turn');
});

test('should open the connection at once by default, and leave an unreadable kubeconfig to the phase', async (t) => {
  const l = await listener(t);
  const release = preconnectHub(kubeconfig(t, l.url), 'test', nullLogger());
  t.after(release);
  assert.ok(await until(() => l.connections() === 1, 5000));
  const none = preconnectHub('/nonexistent/kubeconfig', 'test', nullLogger());
  none();
});
