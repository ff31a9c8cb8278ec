// End-to-end helpers: run `node dist/cli/main.js ...` as a user would (child processes), collect its
// output, wait for lines, stop it with a signal and check the exit code. Every process started here is
// tracked and killed by killAll() (call it from an after() hook), so a failing test leaves no orphan.
// Also: temp dirs removed at the end, and raw HTTPS requests with any kubeconfig (for exact status codes).

import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { request, type RequestOptions } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiextensionsV1Api, CoreV1Api, KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parseYaml } from '../../src/util/yaml.js';
import { waitFor } from '../helpers/wait-for.js';

/** The built command, exactly what `npm install -g` would run. */
const MAIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function assertBuilt(): void {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first (npm test does)`);
}

export interface CliProcess {
  readonly child: ChildProcess;
  readonly args: readonly string[];
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or 128+signal number style string when killed by a signal). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Waits for a stdout (default) or stderr line matching `re`; rejects on timeout or early exit. */
  waitForLine(re: RegExp, timeoutMs: number, stream?: 'stdout' | 'stderr'): Promise<RegExpMatchArray>;
  /** Sends `signal` and waits for the exit (SIGKILL after `timeoutMs`); returns the exit code. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
  /** One-line summary for assertion messages: args, exit state, tail of both streams. */
  describe(): string;
}

const running = new Set<CliProcess>();
const tempDirs: string[] = [];

/** Starts `node dist/cli/main.js ...args`. */
export function runCli(args: readonly string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliProcess {
  assertBuilt();
  const child = spawn(process.execPath, [MAIN, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  let out = '';
  let err = '';
  const waiters = new Set<() => void>();
  const notify = (): void => {
    for (const w of [...waiters]) w();
  };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    notify();
  });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    notify();
  });
  let exitState: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      exitState = { code, signal };
      running.delete(proc);
      resolve(exitState);
      notify();
    });
  });
  const tail = (s: string): string => (s.length > 1500 ? '…' + s.slice(-1500) : s);
  const proc: CliProcess = {
    child,
    args,
    stdout: () => out,
    stderr: () => err,
    exited,
    describe: () =>
      `ocm-ts ${args.join(' ')} [${exitState ? `exited code=${exitState.code} signal=${exitState.signal}` : `running pid ${child.pid}`}]\n--- stdout ---\n${tail(out)}\n--- stderr ---\n${tail(err)}`,
    waitForLine(re, timeoutMs, stream = 'stdout') {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const text = stream === 'stdout' ? out : err;
          for (const line of text.split('\n')) {
            const m = line.match(re);
            if (m) return done(() => resolve(m));
          }
          if (exitState) done(() => reject(new Error(`process exited before printing ${re}: ${proc.describe()}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${re}: ${proc.describe()}`))), timeoutMs);
        const done = (f: () => void): void => {
          clearTimeout(timer);
          waiters.delete(check);
          f();
        };
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGINT', timeoutMs = 15_000) {
      if (!exitState) {
        child.kill(signal);
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        await exited;
        clearTimeout(timer);
      }
      return exitState!.code;
    },
  };
  running.add(proc);
  return proc;
}

/** Runs a short command to completion (SIGKILL after `timeoutMs`). */
export async function runCliToEnd(args: readonly string[], timeoutMs = 30_000): Promise<{ code: number | null; stdout: string; stderr: string; describe: string }> {
  const p = runCli(args);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const { code } = await p.exited;
  clearTimeout(timer);
  return { code, stdout: p.stdout(), stderr: p.stderr(), describe: p.describe() };
}

/** Kills every process still running (SIGTERM, then SIGKILL after 5 s) and removes temp dirs. */
export async function cleanupAll(): Promise<void> {
  await Promise.all(
    [...running].map(async (p) => {
      p.child.kill('SIGTERM');
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 5000);
      await p.exited;
      clearTimeout(timer);
    }),
  );
  for (const d of tempDirs.splice(0)) await rm(d, { recursive: true, force: true });
}

export async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), `ocm-ts-e2e-${prefix}-`));
  tempDirs.push(d);
  return d;
}

export interface HubProcess {
  proc: CliProcess;
  url: string;
  port: number;
  adminKubeconfig: string;
  bootstrapKubeconfig: string;
}

/** `ocm-ts hub --data-dir DIR` on a free (or the given) loopback port; waits for the ready line. */
export async function startHub(dataDir: string, opts: { port?: number; extraArgs?: string[]; timeoutMs?: number } = {}): Promise<HubProcess> {
  const proc = runCli(['hub', '--data-dir', dataDir, '--apiserver-listen', `127.0.0.1:${opts.port ?? 0}`, '--log-level', 'warn', ...(opts.extraArgs ?? [])]);
  const m = await proc.waitForLine(/^ocm-ts hub ready: apiserver (https:\/\/\S+) admin-kubeconfig (\S+) bootstrap-kubeconfig (\S+)/, opts.timeoutMs ?? 60_000);
  return { proc, url: m[1]!, port: Number(new URL(m[1]!).port), adminKubeconfig: m[2]!, bootstrapKubeconfig: m[3]! };
}

export interface ApiserverProcess {
  proc: CliProcess;
  url: string;
  adminKubeconfig: string;
}

/** `ocm-ts apiserver --data-dir DIR --listen 127.0.0.1:0`; waits for the ready line. */
export async function startApiserver(dataDir: string, timeoutMs = 60_000): Promise<ApiserverProcess> {
  const proc = runCli(['apiserver', '--data-dir', dataDir, '--listen', '127.0.0.1:0', '--log-level', 'warn']);
  const m = await proc.waitForLine(/^ocm-ts apiserver listening on (https:\/\/\S+)/, timeoutMs);
  return { proc, url: m[1]!, adminKubeconfig: join(dataDir, 'admin.kubeconfig') };
}

export function loadKubeConfig(path: string): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(path);
  return kc;
}

export interface RawResponse {
  status: number;
  json: any;
  text: string;
}

/** One HTTPS request with the credentials of a kubeconfig (token or client certificate). */
export async function kubeRequest(kc: KubeConfig, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<RawResponse> {
  const server = kc.getCurrentCluster()?.server;
  if (!server) throw new Error('kubeconfig has no current cluster');
  const url = new URL(path, server);
  const opts: RequestOptions = { method, headers: { accept: 'application/json' } };
  await kc.applyToHTTPSOptions(opts);
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  if (payload) opts.headers = { ...opts.headers, 'content-type': contentType, 'content-length': String(payload.length) };
  return new Promise((resolve, reject) => {
    const req = request(url, { ...opts, agent: false, timeout: 15_000 }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        let json: any;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json, text });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: timed out`)));
    req.on('error', reject);
    req.end(payload);
  });
}

export interface ConditionLike {
  type: string;
  status: string;
}

export function conditionStatus(obj: { status?: { conditions?: ConditionLike[] } } | undefined, type: string): string | undefined {
  return obj?.status?.conditions?.find((c) => c.type === type)?.status;
}

/** The spoke CRDs the agent watches (what the klusterlet operator installs on a managed cluster). */
const SPOKE_CRD_FILES = ['clusterclaims.cluster.open-cluster-management.io.yaml', 'clusterproperties.about.k8s.io.yaml'];

/**
 * Prepares a spoke API server the way the klusterlet operator does before starting the agent: the
 * agent namespace and the spoke CRDs (the agent's status controller waits for the ClusterClaim informer).
 */
export async function prepareSpoke(adminKubeconfig: string, namespace = 'open-cluster-management-agent'): Promise<void> {
  const kc = loadKubeConfig(adminKubeconfig);
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } });
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  for (const f of SPOKE_CRD_FILES) {
    const crd = parseYaml(await readFile(fileURLToPath(new URL(`../../manifests/crds/${f}`, import.meta.url)), 'utf8')) as V1CustomResourceDefinition & { metadata: { name: string } };
    await ext.createCustomResourceDefinition({ body: crd });
    const { group, versions, names } = crd.spec as { group: string; versions: { name: string }[]; names: { plural: string } };
    await waitFor(async () => (await kubeRequest(kc, 'GET', `/apis/${group}/${versions[0]!.name}/${names.plural}?limit=1`)).status === 200, 15_000, { message: `CRD ${crd.metadata.name} served`, intervalMs: 50 });
  }
}
