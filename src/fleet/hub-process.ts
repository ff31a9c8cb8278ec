// The fleet's own hub: `ocm-ts hub --data-dir DIR` in a child process, so that its CPU and memory are
// measured apart from the agents' and it can be killed and started again like a real hub pod. It
// keeps its port across restarts: the agents' hub kubeconfigs name it. With auto-approval the agents
// join with a bootstrap token of the fleet's own, which the hub auto-approves from its first start.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Secret } from '../api/core.js';
import { isAlreadyExists } from '../client/errors.js';
import { createKubeClient } from '../client/rest-client.js';
import { resourceTypes } from '../client/resource-types.js';
import { bootstrapTokenSecret, randomTokenPart } from '../hub/bootstrap-token.js';
import { writePrivateFile } from '../util/private-files.js';
import { parseYaml, toYaml } from '../util/yaml.js';

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
  /**
   * Agents that will connect: they all come from this machine's one address, so the hub must
   * admit that many connections from it (its default per-address share is a quarter of its limit).
   */
  agents?: number;
  /** Longest wait for the ready line (default 120 s). */
  readyTimeoutMs?: number;
}

interface HubEndpoints {
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

/** The user name of a bootstrap token (`system:bootstrap:<token id>`). */
function bootstrapUserOf(token: string): string {
  const id = token.split('.')[0] ?? '';
  if (!/^[a-z0-9]{6}$/.test(id)) throw new Error('the hub bootstrap kubeconfig holds no bootstrap token');
  return `system:bootstrap:${id}`;
}

function launch(o: HubProcessOptions, port: number, autoApproveUser: string | undefined): Promise<{ run: Running; endpoints: HubEndpoints }> {
  const args = [...o.cli.execArgv, o.cli.script, 'hub', '--data-dir', o.dataDir, '--listen', `127.0.0.1:${port}`, '--log-level', 'error'];
  if (o.clusterSigningDurationMs !== undefined) args.push('--cluster-signing-duration', `${Math.round(o.clusterSigningDurationMs)}ms`);
  if (autoApproveUser) args.push('--feature-gates', 'ManagedClusterAutoApproval=true', '--auto-approved-csr-users', autoApproveUser);
  // Every agent holds one connection; the rest covers the bootstrap connections, the hub's own
  // clients and the bench's observers.
  if (o.agents !== undefined) args.push('--max-connections-per-address', String(o.agents + 1024));
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

/** The fleet's own bootstrap token: its id is chosen before the hub starts, so the hub can auto-approve it from its first start. */
const FLEET_BOOTSTRAP_FILE = 'fleet-bootstrap.kubeconfig';
const FLEET_TOKEN_TTL_MS = 365 * 24 * 3600_000;

function tokenOf(kubeconfigText: string): string {
  const doc = parseYaml(kubeconfigText) as { users?: Array<{ user?: { token?: string } }> };
  return doc.users?.[0]?.user?.token ?? '';
}

/** Creates the token's Secret on the hub (kept across restarts in the hub's storage) and the kubeconfig naming it. */
async function installFleetToken(endpoints: HubEndpoints, token: string, file: string): Promise<void> {
  const [id, secret] = token.split('.') as [string, string];
  const admin = createKubeClient({ kubeconfigPath: endpoints.adminKubeconfig }, { userAgent: 'ocm-ts-fleet' });
  try {
    const s = bootstrapTokenSecret(id, secret, Date.now() + FLEET_TOKEN_TTL_MS);
    // Not labelled as the hub's own token: the hub hands out its own, not this one.
    const own: Secret = { ...s, metadata: { name: s.metadata.name, namespace: s.metadata.namespace }, stringData: { ...s.stringData, description: 'ocm-ts fleet: bootstrap token of the simulated agents' } };
    try {
      await admin.resource<Secret>(resourceTypes.secrets, 'kube-system').create(own);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
    }
  } finally {
    admin.close();
  }
  if (!existsSync(file)) {
    const doc = parseYaml(readFileSync(endpoints.bootstrapKubeconfig, 'utf8')) as { users: Array<{ user: Record<string, unknown> }> };
    doc.users[0]!.user = { token };
    await writePrivateFile(file, toYaml(doc));
  }
}

export async function startHubProcess(o: HubProcessOptions): Promise<HubProcess> {
  const hubBootstrapFile = join(o.dataDir, 'bootstrap.kubeconfig');
  const fleetBootstrapFile = join(o.dataDir, FLEET_BOOTSTRAP_FILE);
  // A hub started before keeps its port: the agents' hub kubeconfigs of that run name it.
  const port = existsSync(hubBootstrapFile) ? Number(new URL((parseYaml(readFileSync(hubBootstrapFile, 'utf8')) as { clusters: Array<{ cluster: { server: string } }> }).clusters[0]!.cluster.server).port) : 0;
  let token: string | undefined;
  if (o.autoApproval) token = existsSync(fleetBootstrapFile) ? tokenOf(readFileSync(fleetBootstrapFile, 'utf8')) : `${randomTokenPart(6)}.${randomTokenPart(16)}`;
  const user = token !== undefined ? bootstrapUserOf(token) : undefined;
  const started = await launch(o, port, user);
  let current: Running | undefined = started.run;
  const endpoints = { ...started.endpoints };
  try {
    if (token !== undefined) {
      await installFleetToken(started.endpoints, token, fleetBootstrapFile);
      endpoints.bootstrapKubeconfig = fleetBootstrapFile;
    }
  } catch (err) {
    await terminate(started.run, 'SIGTERM');
    throw err;
  }
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
