// `ocm-ts apiserver` as a child process: one stdout line with the URL, restart keeps state,
// kill -9 during a stream of HTTPS writes loses no acknowledged write, SIGTERM exits 0.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { KubeConfig } from '@kubernetes/client-node';
import { rawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';

const MAIN = new URL('../../src/cli/main.ts', import.meta.url).pathname;

interface Child {
  proc: ChildProcess;
  url: string;
  exited: Promise<number | null>;
}

async function startChild(dataDir: string): Promise<Child> {
  const proc = spawn(process.execPath, ['--import', 'tsx', MAIN, 'apiserver', '--data-dir', dataDir, '--listen', '127.0.0.1:0', '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  let stderr = '';
  proc.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const lines = createInterface({ input: proc.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`no URL line within 60 s; stderr: ${stderr}`)), 60_000);
    lines.once('line', (l) => {
      clearTimeout(t);
      const m = /^ocm-ts apiserver listening on (https:\/\/\S+)$/.exec(l);
      if (m) resolve(m[1] as string);
      else reject(new Error(`unexpected stdout line: ${l}`));
    });
    void exited.then((code) => reject(new Error(`exited early (${code}); stderr: ${stderr}`)));
  });
  return { proc, url, exited };
}

describe('ocm-ts apiserver command', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it('should lose no acknowledged write when killed with SIGKILL, and stop cleanly on SIGTERM', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'ocm-ts-cli-'));
    dirs.push(dataDir);
    const first = await startChild(dataDir);
    const kcPath = join(dataDir, 'admin.kubeconfig');
    assert.equal(((await stat(kcPath)).mode & 0o777).toString(8), '600');
    const kc = new KubeConfig();
    kc.loadFromFile(kcPath);
    const raw = rawClient(kc);
    const acked: string[] = [];
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const name = `w${w}-${i}`;
        try {
          const res = await raw.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name }, data: { i: String(i) } } });
          if (res.status === 201) acked.push(name);
        } catch {
          return;
        }
      }
    };
    const writers = [0, 1, 2, 3].map(writer);
    await waitFor(() => acked.length >= 150, 60_000, { message: '150 acknowledged writes' });
    first.proc.kill('SIGKILL');
    stop = true;
    await Promise.all(writers);
    await first.exited;
    raw.close();

    const second = await startChild(dataDir);
    const kc2 = new KubeConfig();
    kc2.loadFromFile(kcPath);
    assert.equal(kc2.getCurrentCluster()?.server, second.url);
    const raw2 = rawClient(kc2);
    const list = await raw2.request('GET', '/api/v1/namespaces/default/configmaps');
    const present = new Set(list.json.items.map((i: { metadata: { name: string } }) => i.metadata.name));
    const lost = acked.filter((n) => !present.has(n));
    assert.deepEqual(lost, []);
    raw2.close();
    second.proc.kill('SIGTERM');
    assert.equal(await second.exited, 0);
  });
});
