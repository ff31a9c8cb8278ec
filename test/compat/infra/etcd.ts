// One etcd on loopback for every real kube-apiserver of a run; each apiserver keeps its objects
// under its own key prefix, so control planes do not see each other.
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startChild, type Child } from './child-process.js';
import { freePort } from './ports.js';
import { FatalWaitError, waitUntil } from './wait-until.js';

export interface Etcd {
  url: string;
  child: Child;
  /** Stops etcd and removes its data. */
  stop(): Promise<void>;
}

export async function startEtcd(etcdPath: string, runDir: string): Promise<Etcd> {
  const clientPort = await freePort();
  const peerPort = await freePort();
  // RAM-backed when available: etcd's fsyncs would otherwise dominate every write on CI disks.
  const base = process.platform === 'linux' ? '/dev/shm' : runDir;
  const dataDir = join(base, `ocm-ts-compat-etcd-${process.pid}-${clientPort}`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const url = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child = startChild({
    name: 'etcd',
    command: etcdPath,
    args: [
      '--name=compat',
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${url}`,
      `--advertise-client-urls=${url}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=compat=${peer}`,
      '--log-level=warn',
      '--quota-backend-bytes=4294967296',
    ],
    logPath: join(runDir, 'etcd.log'),
  });
  await waitUntil(`etcd at ${url}`, 30_000, async () => {
    if (child.exited()) throw new FatalWaitError(`etcd exited; see ${child.logPath}`);
    const res = await fetch(`${url}/health`);
    return res.ok && ((await res.json()) as { health?: string }).health === 'true';
  });
  return {
    url,
    child,
    async stop() {
      await child.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
