// Hub benchmark: N accepted clusters whose leases a load generator renews at their period against the
// embedded server; the hub runs as `ocm-ts hub --kubeconfig` in a child process so its CPU is its own.
// Prints hub CPU per lease update (and the core share extrapolated to 60 s leases), the API requests the
// hub makes per cluster per minute in steady state, and how long after the grace period a stopped
// cluster is flagged Unknown.
//
// Env: BENCH_HUB_CLUSTERS=1000[,10000] (default both), BENCH_HUB_WINDOW_S (default 15), BENCH_HUB_RATE
// (renewals/s asked of the server, default 60). The lease period is set to N / rate seconds (scaled from
// 60 s; the output says so) and the hub CPU per update is extrapolated to 60 s leases. Objects are seeded straight into the store (bench setup, not measured).

import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Admission from '../src/apiserver/admission/index.js';
import type * as Embedded from '../src/apiserver/embedded.js';
import { storageKey } from '../src/apiserver/pipeline.js';
import type { Store } from '../src/apiserver/storage/types.js';
import { rfc3339, rfc3339Micro } from '../src/api/conditions.js';
import { HUB_CRD_NAMES, loadCrds } from '../src/api/crds.js';
import type { ManagedCluster } from '../src/api/cluster.js';
import type { KubeObject } from '../src/api/meta.js';
import type * as Client from '../src/client/index.js';
import type { KubeClient } from '../src/client/types.js';
import { installCrds } from '../src/hub/install-crds.js';
import { clusterRoleBindings, clusterSpecificRbac, clusterLabels } from '../src/hub/rbac-manifests.js';
import { realClock } from '../src/util/clock.js';
import { nullLogger } from '../src/util/logger.js';
import { BUILT_MAIN, fromBuild } from './product.js';

// The hub command, the API server and the load generator's client come from the build (see product.ts).
const { ocmAdmissionPlugins } = await fromBuild<typeof Admission>('apiserver/admission/index.js');
const { startEmbeddedApiServer } = await fromBuild<typeof Embedded>('apiserver/embedded.js');
const { createKubeClient, resourceTypes } = await fromBuild<typeof Client>('client/index.js');
const TICKS_PER_S = 100; // Linux USER_HZ
const STOPPED = 5;

function cpuSecondsOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / TICKS_PER_S; // utime, stime
}

function seedCluster(store: Store, name: string, leaseDurationSeconds: number, nowMs: number): void {
  const ts = rfc3339(new Date(nowMs));
  const meta = (m: KubeObject['metadata']) => ({ ...m, uid: randomUUID(), creationTimestamp: ts });
  const cond = (type: string, reason: string, message: string) => ({ type, status: 'True' as const, reason, message, lastTransitionTime: ts });
  const mc: ManagedCluster = {
    apiVersion: 'cluster.open-cluster-management.io/v1',
    kind: 'ManagedCluster',
    metadata: meta({
      name,
      labels: { 'cluster.open-cluster-management.io/clusterset': 'default' },
      finalizers: ['cluster.open-cluster-management.io/resource-cleanup', 'cluster.open-cluster-management.io/api-resource-cleanup'],
    }),
    spec: { hubAcceptsClient: true, leaseDurationSeconds },
    status: {
      conditions: [
        cond('HubAcceptedManagedCluster', 'HubClusterAdminAccepted', 'Accepted by hub cluster admin'),
        cond('ManagedClusterJoined', 'ManagedClusterJoined', 'Managed cluster joined'),
        cond('ManagedClusterConditionAvailable', 'ManagedClusterAvailable', 'Managed cluster is available'),
        cond('ManagedClusterConditionClockSynced', 'ManagedClusterClockSynced', 'The clock of the managed cluster is synced with the hub.'),
      ],
    },
  };
  store.create(storageKey('cluster.open-cluster-management.io', 'managedclusters', '', name), mc);
  store.create(storageKey('', 'namespaces', '', name), { apiVersion: 'v1', kind: 'Namespace', metadata: meta({ name, labels: clusterLabels(name, {}) }), spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  store.create(storageKey('coordination.k8s.io', 'leases', name, 'managed-cluster-lease'), {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: meta({ name: 'managed-cluster-lease', namespace: name, labels: { 'open-cluster-management.io/cluster-name': name } }),
    spec: { holderIdentity: 'managed-cluster-lease', renewTime: rfc3339Micro(new Date(nowMs)) },
  });
  const [cr, crb] = clusterSpecificRbac(name, true, {});
  store.create(storageKey('rbac.authorization.k8s.io', 'clusterroles', '', cr.metadata.name!), { ...cr, metadata: meta(cr.metadata) });
  store.create(storageKey('rbac.authorization.k8s.io', 'clusterrolebindings', '', crb.metadata.name!), { ...crb, metadata: meta(crb.metadata) });
  for (const rb of clusterRoleBindings(name, {})) store.create(storageKey('rbac.authorization.k8s.io', 'rolebindings', name, rb.metadata.name!), { ...rb, metadata: meta(rb.metadata) });
}

/**
 * A GET of the hub child's metrics endpoint. It serves HTTPS with a certificate it makes at start
 * (self-signed, as OCM's controllers do), so the bench, reading its own child on loopback, does not
 * verify it; fetch() would refuse it.
 */
function getMetricsText(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    httpsGet(url, { rejectUnauthorized: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => (res.statusCode === 200 ? resolve(text) : reject(new Error(`GET ${url}: ${String(res.statusCode)} ${text}`))));
      res.on('error', reject);
    }).on('error', reject);
  });
}

async function hubRequestBreakdown(metricsUrl: string): Promise<Map<string, number>> {
  const text = await getMetricsText(metricsUrl);
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^ocm_hub_api_requests_total\{verb="([^"]*)",resource="([^"]*)"\} (\S+)$/.exec(line);
    if (m && m[1] !== 'watch') out.set(`${m[1]} ${m[2]}`, Number(m[3]));
  }
  return out;
}

async function hubRequests(metricsUrl: string): Promise<number> {
  let total = 0;
  for (const v of (await hubRequestBreakdown(metricsUrl)).values()) total += v;
  return total;
}

function describeDelta(a: Map<string, number>, b: Map<string, number>): string {
  const parts: string[] = [];
  for (const [k, v] of b) if (v - (a.get(k) ?? 0) > 0) parts.push(`${k} ${v - (a.get(k) ?? 0)}`);
  return parts.length ? parts.join(', ') : 'none';
}

function startHubChild(kubeconfig: string): Promise<{ child: ChildProcess; metricsUrl: string }> {
  // One hub: without --disable-leader-election it would wait for OCM's lock Lease in the
  // open-cluster-management-hub namespace, which this bare API server does not have, and run no controller.
  const child = spawn(process.execPath, [BUILT_MAIN, 'hub', '--kubeconfig', kubeconfig, '--listen', '127.0.0.1:0', '--disable-leader-election', '--log-level', 'error'], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`hub exited with ${String(code)}`)));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /metrics (\S+)/.exec(out);
      if (m) resolve({ child, metricsUrl: m[1]! });
    });
  });
}

/** Renews leases at their period; clusters are spread evenly over the period. */
function startLoad(client: KubeClient, names: string[], periodMs: number, opts: { concurrency: number }) {
  let sent = 0;
  let failed = 0;
  let inFlight = 0;
  let stopped = false;
  const due: string[] = [];
  const lastRenew = new Map<string, number>();
  const start = Date.now();
  const slot = periodMs / names.length;
  let next = 0; // index into the schedule (cluster i at start + i*slot + k*period)
  const pump = (): void => {
    while (!stopped && inFlight < opts.concurrency && due.length > 0) {
      const name = due.shift()!;
      inFlight++;
      const at = Date.now();
      client
        .resource(resourceTypes.leases, name)
        .patch('managed-cluster-lease', 'merge', { spec: { renewTime: rfc3339Micro(new Date(at)) } })
        .then(
          () => {
            sent++;
            lastRenew.set(name, at);
          },
          () => failed++,
        )
        .finally(() => {
          inFlight--;
          pump();
        });
    }
  };
  const timer = setInterval(() => {
    const now = Date.now();
    while (start + next * slot <= now) {
      due.push(names[next % names.length]!);
      next++;
    }
    pump();
  }, 5);
  return {
    sent: () => sent,
    failed: () => failed,
    backlog: () => due.length,
    lastRenew,
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

async function runOnce(n: number, windowS: number): Promise<void> {
  // Lease period chosen so the load generator asks for about BENCH_HUB_RATE renewals per second, which the
  // embedded server sustains (its lease PATCH throughput is the limit on this machine, not the hub's).
  const rate = Number(process.env['BENCH_HUB_RATE'] ?? '60');
  const periodS = Math.max(2, Math.ceil(n / rate));
  // tmpfs when available: the figures are about the hub's CPU and requests, not the disk's fsync rate.
  const dir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'ocm-ts-bench-hub-'));
  const server = await startEmbeddedApiServer({ dataDir: dir, listen: { host: '127.0.0.1', port: 0 }, log: nullLogger(), admission: ocmAdmissionPlugins() });
  const admin = createKubeClient({ kubeconfigPath: server.adminKubeconfigPath });
  let hub: ChildProcess | undefined;
  try {
    await installCrds(admin, loadCrds(HUB_CRD_NAMES), { clock: realClock });
    const t0 = Date.now();
    const names = Array.from({ length: n }, (_, i) => `bench-${i}`);
    const stoppedNames = Array.from({ length: STOPPED }, (_, i) => `stop-${i}`);
    for (const name of names) seedCluster(server.store, name, periodS, t0);
    for (const name of stoppedNames) seedCluster(server.store, name, 1, t0);
    const seedS = (Date.now() - t0) / 1000;

    const h = await startHubChild(server.adminKubeconfigPath);
    hub = h.child;
    const pid = hub.pid!;
    const load = startLoad(admin, names, periodS * 1000, { concurrency: 32 });
    const stopLoad = startLoad(admin, stoppedNames, 1000, { concurrency: 4 });
    // warm-up: until the hub's request count is flat for 2 s (startup syncs done)
    let prev = -1;
    for (;;) {
      await new Promise((r) => setTimeout(r, 2000));
      const cur = await hubRequests(h.metricsUrl);
      if (cur === prev) break;
      prev = cur;
    }
    const warmS = (Date.now() - t0) / 1000 - seedS;

    // steady window; the stopped clusters stop renewing at its start
    const watchAbort = new AbortController();
    const flagged = new Map<string, number>();
    const rv = (await admin.resource(resourceTypes.managedClusters).list({ limit: 1 })).metadata.resourceVersion;
    void (async () => {
      try {
        for await (const ev of admin.resource<ManagedCluster>(resourceTypes.managedClusters).watch({ ...(rv ? { resourceVersion: rv } : {}), signal: watchAbort.signal })) {
          const name = ev.object.metadata.name ?? '';
          if (!name.startsWith('stop-') || flagged.has(name)) continue;
          if (ev.object.status?.conditions?.some((c) => c.type === 'ManagedClusterConditionAvailable' && c.status === 'Unknown')) flagged.set(name, Date.now());
        }
      } catch {
        // aborted
      }
    })();
    // The stopped clusters may have been flagged during the busy warm-up: report them available again (as
    // their agent would), then stop renewing their leases; only flags after this point count.
    for (const name of stoppedNames) {
      const mc = await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get(name);
      const conditions = (mc.status?.conditions ?? []).map((c) =>
        c.type === 'ManagedClusterConditionAvailable' ? { ...c, status: 'True' as const, reason: 'ManagedClusterAvailable', message: 'Managed cluster is available' } : c,
      );
      await admin.resource(resourceTypes.managedClusters).patch(name, 'merge', { status: { conditions } }, { subresource: 'status' });
    }
    await new Promise((r) => setTimeout(r, 1000));
    flagged.clear();
    stopLoad.stop();
    await new Promise((r) => setTimeout(r, 100));
    const cpu0 = cpuSecondsOf(pid);
    const startup = await hubRequestBreakdown(h.metricsUrl);
    const req0 = await hubRequests(h.metricsUrl);
    const sent0 = load.sent();
    const w0 = Date.now();
    await new Promise((r) => setTimeout(r, windowS * 1000));
    const cpu1 = cpuSecondsOf(pid);
    const req1 = await hubRequests(h.metricsUrl);
    const windowBreakdown = describeDelta(startup, await hubRequestBreakdown(h.metricsUrl));
    const sent1 = load.sent();
    const elapsed = (Date.now() - w0) / 1000;
    load.stop();
    watchAbort.abort();

    const updates = sent1 - sent0;
    const cpuPerUpdateMs = ((cpu1 - cpu0) * 1000) / Math.max(1, updates);
    const coresAt60s = (cpuPerUpdateMs / 1000) * (n / 60);
    const reqPerClusterMin = (req1 - req0) / n / (elapsed / 60);
    const lags: number[] = [];
    for (const name of stoppedNames) {
      const last = stopLoad.lastRenew.get(name);
      const at = flagged.get(name);
      if (last !== undefined && at !== undefined) lags.push(at - (last + 5000));
    }
    lags.sort((a, b) => a - b);
    const out = [
      `clusters ${n} (+${STOPPED} stopped); lease period 60 s → ${periodS} s for the load (${(n / periodS).toFixed(0)} renewals/s; ×${(60 / periodS).toFixed(2)} the real rate), CPU extrapolated to 60 s; seed ${seedS.toFixed(1)} s, hub warm-up ${warmS.toFixed(1)} s, window ${elapsed.toFixed(1)} s`,
      `  lease updates in window: ${updates} (${(updates / elapsed).toFixed(0)}/s, failed ${load.failed()}, backlog ${load.backlog()})`,
      `  hub CPU: ${(cpu1 - cpu0).toFixed(2)} s → ${cpuPerUpdateMs.toFixed(3)} ms per lease update; at 60 s leases ≈ ${coresAt60s.toFixed(3)} core (target < 0.25)`,
      `  hub API requests at startup (lists for the informers, then per-cluster syncs): ${describeDelta(new Map(), startup)}`,
      `  hub API requests in window (excluding watches): ${req1 - req0} (${windowBreakdown}) → ${reqPerClusterMin.toFixed(4)} per cluster per minute; the ${STOPPED} stopped clusters account for up to ${STOPPED * 3} (status patch, event, taint); target for healthy clusters: 0`,
      `  stopped clusters (leaseDurationSeconds 1) flagged after grace end: ${lags.length}/${STOPPED}${lags.length ? `, median ${lags[Math.floor(lags.length / 2)]} ms, max ${lags[lags.length - 1]} ms (target < 1000 ms)` : ''}`,
    ];
    process.stdout.write(out.join('\n') + '\n');
  } finally {
    hub?.kill('SIGTERM');
    if (hub) await new Promise((r) => hub!.once('exit', r));
    admin.close();
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function benchHub(): Promise<void> {
  const sizes = (process.env['BENCH_HUB_CLUSTERS'] ?? '1000,10000').split(',').map((s) => Number(s.trim())).filter((x) => Number.isInteger(x) && x > 0);
  const windowS = Number(process.env['BENCH_HUB_WINDOW_S'] ?? '15');
  for (const n of sizes) await runOnce(n, windowS);
}
