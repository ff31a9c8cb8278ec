// The fleet's own hub: `ocm-ts hub --data-dir DIR` in a child process, so that its CPU and memory are
// measured apart from the agents' and it can be killed and started again like a real hub pod. It
// keeps its port across restarts: the agents' hub kubeconfigs name it.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';

/** How to run the `ocm-ts` CLI: a Node script and the Node flags it needs (tsx from source). */
export interface CliEntry {
  script: string;
  execArgv: readonly string[];
}

export interface HubProcessOptions {
  cli: CliEntry;
  dataDir: string;
  /** Lifetime of the certificates the hub signs (`--cluster-signing-duration`, ms). */
  clusterSigningDurationMs?: number;
  /** Auto-approve the bootstrap user's CSRs and accept its clusters (gate ManagedClusterAutoApproval). */
  autoApproval: boolean;
  /** Longest wait for the ready line (default 120 s). */
  readyTimeoutMs?: number;
}

export interface HubEndpoints {
  url: string;
  port: number;
  adminKubeconfig: string;
  bootstrapKubeconfig: string;
}

export interface HubProcess {
  readonly endpoints: HubEndpoints;
  /** Pid of the running hub; undefined while it is down. */
  pid(): number | undefined;
  /** SIGKILL, as a crashed or evicted pod: nothing is flushed or released. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory. */
  restart(): Promise<void>;
  /** SIGTERM, then SIGKILL after 15 s. */
  stop(): Promise<void>;
}

interface Running {
  child: ChildProcess;
  exited: Promise<void>;
}

/** The bootstrap token's user name from a bootstrap kubeconfig (`system:bootstrap:<token id>`). */
export function bootstrapUserOf(kubeconfigText: string): string {
  const doc = YAML.parse(kubeconfigText) as { users?: Array<{ user?: { token?: string } }> };
  const token = doc.users?.[0]?.user?.token ?? '';
  const id = token.split('.')[0] ?? '';
  if (!/^[a-z0-9]{6}$/.test(id)) throw new Error('the hub bootstrap kubeconfig holds no bootstrap token');
  return `system:bootstrap:${id}`;
}

function launch(o: HubProcessOptions, port: number, autoApproveUser: string | undefined): Promise<{ run: Running; endpoints: HubEndpoints }> {
  const args = [...o.cli.execArgv, o.cli.script, 'hub', '--data-dir', o.dataDir, '--listen', `127.0.0.1:${port}`, '--log-level', 'error'];
  if (o.clusterSigningDurationMs !== undefined) args.push('--cluster-signing-duration', `${Math.round(o.clusterSigningDurationMs)}ms`);
  if (autoApproveUser) args.push('--feature-gates', 'ManagedClusterAutoApproval=true', '--auto-approved-csr-users', autoApproveUser);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    // Only the tail matters, for an error message.
    err = (err + d).slice(-4000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the hub was not ready after ${(o.readyTimeoutMs ?? 120_000) / 1000} s: ${err}`));
    }, o.readyTimeoutMs ?? 120_000);
    const onData = (d: string): void => {
      out += d;
      const m = /^ocm-ts hub ready: apiserver (\S+) admin-kubeconfig (\S+) bootstrap-kubeconfig (\S+)/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      const url = m[1]!;
      resolve({ run: { child, exited }, endpoints: { url, port: Number(new URL(url).port), adminKubeconfig: m[2]!, bootstrapKubeconfig: m[3]! } });
    };
    child.stdout!.setEncoding('utf8').on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the hub exited before it was ready (code ${child.exitCode ?? child.signalCode}): ${err}`));
    });
  });
}

async function terminate(r: Running, signal: NodeJS.Signals): Promise<void> {
  if (r.child.exitCode !== null || r.child.signalCode !== null) return;
  r.child.kill(signal);
  const timer = setTimeout(() => r.child.kill('SIGKILL'), 15_000);
  await r.exited;
  clearTimeout(timer);
}

export async function startHubProcess(o: HubProcessOptions): Promise<HubProcess> {
  // The auto-approved user names the bootstrap token, which the hub makes at its first start: a
  // fresh directory is started once without auto-approval to learn it (the token is reused later).
  const bootstrapFile = join(o.dataDir, 'bootstrap.kubeconfig');
  let port = 0;
  let user: string | undefined;
  if (existsSync(bootstrapFile)) {
    const text = readFileSync(bootstrapFile, 'utf8');
    if (o.autoApproval) user = bootstrapUserOf(text);
    port = Number(new URL((YAML.parse(text) as { clusters: Array<{ cluster: { server: string } }> }).clusters[0]!.cluster.server).port);
  }
  let started = await launch(o, port, user);
  if (o.autoApproval && user === undefined) {
    user = bootstrapUserOf(readFileSync(started.endpoints.bootstrapKubeconfig, 'utf8'));
    await terminate(started.run, 'SIGTERM');
    started = await launch(o, started.endpoints.port, user);
  }
  const endpoints = started.endpoints;
  let current: Running | undefined = started.run;
  return {
    endpoints,
    pid: () => (current && current.child.exitCode === null && current.child.signalCode === null ? current.child.pid : undefined),
    async kill() {
      if (current) await terminate(current, 'SIGKILL');
      current = undefined;
    },
    async restart() {
      if (current) await terminate(current, 'SIGTERM');
      current = undefined;
      current = (await launch(o, endpoints.port, user)).run;
    },
    async stop() {
      if (current) await terminate(current, 'SIGTERM');
      current = undefined;
    },
  };
}
