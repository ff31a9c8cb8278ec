// Data directories are private: the directory 0700 and every file in it 0600 (state.db and its
// -wal, the PKI, kubeconfigs), on a fresh directory and on one an older version left 0755/0644,
// for the embedded API server, the hub and the demo. When the tests run as root they also check
// that user nobody can read none of it.

import 'reflect-metadata';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmod, lstat, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startEmbeddedHub } from '../../src/embedded/embedded-hub.js';
import { resolveHubOptions } from '../../src/hub/options.js';
import { prepareDemoDir } from '../../src/cli/demo-fleet.js';
import { realClock } from '../../src/util/clock.js';
import { nullLogger } from '../../src/util/logger.js';
import { startTestApiServer } from '../helpers/embedded-server.js';
import { rawClient } from '../helpers/raw-client.js';

const NOBODY = 65534;

/** Every path under `dir` (itself as '.') with its permission bits in octal. */
async function modes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (p: string): Promise<void> => {
    const st = await lstat(p);
    out[relative(dir, p) || '.'] = (st.mode & 0o777).toString(8);
    if (st.isDirectory()) for (const name of await readdir(p)) await walk(join(p, name));
  };
  await walk(dir);
  return out;
}

function assertPrivate(found: Record<string, string>, mustHave: string[]): void {
  for (const f of mustHave) assert.ok(f in found, `${f} exists (found: ${Object.keys(found).join(', ')})`);
  const loose = Object.entries(found).filter(([, m]) => m !== '700' && m !== '600');
  assert.deepEqual(loose, [], 'every directory 0700 and every file 0600');
}

/** Makes a whole tree readable by everyone, as an older version or a 022 umask left it. */
async function loosen(p: string): Promise<void> {
  const st = await lstat(p);
  if (st.isDirectory()) {
    await chmod(p, 0o755);
    for (const name of await readdir(p)) await loosen(join(p, name));
  } else if (st.isFile()) {
    await chmod(p, 0o644);
  }
}

/** Files of `dir` user nobody can read (only meaningful as root; elsewhere []). */
function readableByNobody(dir: string, files: string[]): string[] {
  if (process.getuid?.() !== 0) return [];
  return files.filter((f) => spawnSync('cat', [join(dir, f)], { uid: NOBODY, gid: NOBODY }).status === 0);
}

describe('private data directories', () => {
  let root: string;
  let umask: number;
  before(async () => {
    // The usual umask: whatever is left to it would be world-readable.
    umask = process.umask(0o022);
    root = await mkdtemp(join(tmpdir(), 'ocm-ts-perms-'));
    // Traversable by others, so that only the modes under test stand between them and the files.
    await chmod(root, 0o755);
  });
  after(async () => {
    process.umask(umask);
    await rm(root, { recursive: true, force: true });
  });

  it('should keep the API server data dir, state.db, its -wal and the PKI private, fresh and after tightening a loose dir', async () => {
    const dataDir = join(root, 'apiserver');
    // The nobody check is not vacuous: a world-readable file next to the data dir is readable.
    await writeFile(join(root, 'probe.txt'), 'x', { mode: 0o644 });
    if (process.getuid?.() === 0) assert.deepEqual(readableByNobody(root, ['probe.txt']), ['probe.txt']);
    const serverFiles = ['state.db', 'state.db-wal', 'state.db.owner', 'admin.kubeconfig', 'pki', 'pki/ca.key', 'pki/ca.crt', 'pki/apiserver.key', 'pki/apiserver.crt', 'pki/sa.key'];
    let srv = await startTestApiServer({ dataDir, keepDataDir: true });
    try {
      const raw = rawClient(srv.kubeConfig);
      const res = await raw.request('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' }, stringData: { token: 'sekret' } } });
      raw.close();
      assert.equal(res.status, 201, res.text);
      const fresh = await modes(dataDir);
      assertPrivate(fresh, serverFiles);
      assert.deepEqual(readableByNobody(dataDir, ['state.db', 'state.db-wal', 'pki/ca.key', 'admin.kubeconfig']), []);
    } finally {
      await srv.stop();
    }

    await loosen(dataDir);
    // Side files an older version or a crash may have left behind, world-readable.
    await writeFile(join(dataDir, 'state.db-wal'), '', { mode: 0o644 });
    await writeFile(join(dataDir, 'state.db.owner'), '1\n', { mode: 0o644 });
    await writeFile(join(dataDir, 'admin.kubeconfig.tmp-1'), 'partial', { mode: 0o644 });
    assert.equal((await modes(dataDir))['.'], '755');
    srv = await startTestApiServer({ dataDir, keepDataDir: true });
    try {
      const raw = rawClient(srv.kubeConfig);
      const res = await raw.request('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's2' }, stringData: { token: 'sekret' } } });
      raw.close();
      assert.equal(res.status, 201, res.text);
      assertPrivate(await modes(dataDir), [...serverFiles, 'admin.kubeconfig.tmp-1']);
      assert.deepEqual(readableByNobody(dataDir, ['state.db', 'state.db-wal', 'pki/ca.key', 'admin.kubeconfig']), []);
    } finally {
      await srv.stop();
    }
    const other = join(root, 'other-umask');
    // Even a umask that would leave files writable by everyone does not show.
    const previous = process.umask(0o000);
    try {
      const s = await startTestApiServer({ dataDir: other, keepDataDir: true });
      await s.stop();
    } finally {
      process.umask(previous);
    }
    assertPrivate(await modes(other), ['state.db', 'pki/ca.key', 'admin.kubeconfig']);
  });

  it('should keep the hub data dir and its kubeconfigs private, also when restarted on a loose dir', async () => {
    const dataDir = join(root, 'hub');
    const start = async (): Promise<{ close(): Promise<void> }> => {
      const ac = new AbortController();
      const hub = await startEmbeddedHub({
        dataDir,
        apiserverListen: { host: '127.0.0.1', port: 0 },
        bootstrapTokenTtlMs: 3_600_000,
        hubOptions: resolveHubOptions({}).options,
        log: nullLogger(),
        clock: realClock,
        signal: ac.signal,
      });
      return {
        async close() {
          ac.abort();
          await hub.close();
        },
      };
    };
    const hubFiles = ['state.db', 'state.db-wal', 'admin.kubeconfig', 'bootstrap.kubeconfig', 'hub-controller.kubeconfig', 'pki/ca.key', 'pki/ca.crt'];
    let hub = await start();
    try {
      assertPrivate(await modes(dataDir), hubFiles);
    } finally {
      await hub.close();
    }
    await loosen(dataDir);
    hub = await start();
    try {
      assertPrivate(await modes(dataDir), hubFiles);
      assert.deepEqual(readableByNobody(dataDir, ['bootstrap.kubeconfig', 'state.db', 'state.db-wal']), []);
    } finally {
      await hub.close();
    }
  });

  it("should tighten the demo's directory and what the demo wrote there, and nothing else", async () => {
    const dataDir = join(root, 'demo');
    await mkdir(join(dataDir, 'cluster1', 'hub-kubeconfig'), { recursive: true });
    await mkdir(join(dataDir, 'hub', 'pki'), { recursive: true });
    await writeFile(join(dataDir, 'cluster1', 'hub-kubeconfig', 'tls.key'), 'k');
    await writeFile(join(dataDir, 'hub', 'pki', 'ca.key'), 'k');
    await writeFile(join(dataDir, 'demo.json'), '{}');
    await writeFile(join(dataDir, 'demo.log'), '');
    await loosen(dataDir);
    await writeFile(join(dataDir, 'README.txt'), 'not the demo', { mode: 0o644 });
    await prepareDemoDir(dataDir);
    const found = await modes(dataDir);
    assert.equal(found['README.txt'], '644');
    delete found['README.txt'];
    assertPrivate(found, ['demo.json', 'demo.log', 'cluster1/hub-kubeconfig/tls.key', 'hub/pki/ca.key']);
  });
});
