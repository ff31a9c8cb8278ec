// One cell of the gRPC phase: an agent joins a hub over gRPC and keeps working across a restart of
// the gRPC server. Steps, each pass or fail (a step after a failed one fails as blocked):
//   joined      the ManagedCluster is accepted, Joined and Available; the spoke holds the hub secret
//               with the gRPC config and a client certificate the hub's gRPC CA signed
//   lease       the agent renews its lease (at a 5 s period set on the ManagedCluster)
//   restart     the gRPC server is killed and started again: the agent renews its lease through the
//               new server and the cluster stays (or comes back) Available
import { X509Certificate } from 'node:crypto';
import type { KubeObject } from '../../../src/api/meta.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import type { KubeClient } from '../../../src/client/types.js';
import { waitUntil } from '../infra/wait-until.js';
import { ACCEPTED, allOf, AVAILABLE, getOrUndefined, hasCondition, JOINED, MANAGED_CLUSTERS, SECRETS, waitCluster } from '../matrix/checks.js';
import type { GrpcAgent } from './agents.js';
import { AGENT_NAMESPACE } from './agents.js';
import type { GrpcHub } from './hubs.js';

export const GRPC_STEPS = ['joined', 'lease', 'restart'] as const;
export type GrpcStep = (typeof GRPC_STEPS)[number];

export interface GrpcStepOutcome {
  status: 'pass' | 'fail';
  detail: string;
  seconds: number;
}

const JOIN_TIMEOUT = 180_000;
const LEASE_SECONDS = 5;
const RECONNECT_TIMEOUT = 180_000;
const joinedAndAvailable = allOf(hasCondition(ACCEPTED, 'True'), hasCondition(JOINED, 'True'), hasCondition(AVAILABLE, 'True'));

async function renewTime(hub: KubeClient, cluster: string): Promise<number | undefined> {
  const lease = await getOrUndefined(hub, resourceTypes.leases, 'managed-cluster-lease', cluster);
  const t = (lease as (KubeObject & { spec?: { renewTime?: string } }) | undefined)?.spec?.renewTime;
  return t ? Date.parse(t) : undefined;
}

/** Waits for a lease renewal later than `after` (ms since the epoch); resolves with its time. */
async function renewedAfter(hub: KubeClient, cluster: string, after: number, what: string, timeoutMs: number): Promise<number> {
  return waitUntil(`${cluster}: ${what}`, timeoutMs, async () => {
    const t = await renewTime(hub, cluster);
    return t !== undefined && t > after ? t : undefined;
  }, 500);
}

async function joined(hub: GrpcHub, agent: GrpcAgent): Promise<string> {
  const started = Date.now();
  await waitCluster(hub.cp.admin, agent.clusterName, 'Joined and Available', JOIN_TIMEOUT, joinedAndAvailable);
  const took = (Date.now() - started) / 1000;
  const certPem = await waitUntil(`${agent.clusterName}: hub secret with certificate and gRPC config on the spoke`, 30_000, async () => {
    const s = (await getOrUndefined(agent.spoke.admin, SECRETS, 'hub-kubeconfig-secret', AGENT_NAMESPACE)) as { data?: Record<string, string> } | undefined;
    return s?.data?.['tls.crt'] && s.data['config.yaml'] ? Buffer.from(s.data['tls.crt'], 'base64').toString('utf8') : undefined;
  }, 250);
  // Signed by the hub's gRPC CA: the grpc signer issued it, not kube-controller-manager's.
  const cert = new X509Certificate(certPem);
  if (!cert.verify(new X509Certificate(hub.pki.caPem).publicKey)) throw new Error(`the client certificate (issuer ${cert.issuer}) is not signed by the gRPC CA`);
  return `joined in ${took.toFixed(0)} s as ${cert.subject.replace(/\n/g, ', ')}`;
}

async function lease(hub: GrpcHub, agent: GrpcAgent): Promise<string> {
  await hub.cp.admin.resource(MANAGED_CLUSTERS).patch(agent.clusterName, 'merge', { spec: { leaseDurationSeconds: LEASE_SECONDS } });
  const first = await waitUntil(`${agent.clusterName}: a lease on the hub`, 60_000, () => renewTime(hub.cp.admin, agent.clusterName), 500);
  const second = await renewedAfter(hub.cp.admin, agent.clusterName, first, 'lease renewed', 60_000);
  const third = await renewedAfter(hub.cp.admin, agent.clusterName, second, 'lease renewed again', 60_000);
  return `renewed every ~${((third - second) / 1000).toFixed(0)} s`;
}

async function restart(hub: GrpcHub, agent: GrpcAgent): Promise<string> {
  const restartsBefore = agent.restarts();
  const down = Date.now();
  await hub.restartGrpcServer();
  const up = Date.now();
  // OCM's CloudEvents clients share one reconnect backoff (5 s growing to a 1 min cap, with up to
  // 100 % jitter), so its agent can take about two minutes to come back.
  // Each of its clients backs off on its own: the lease client may be back a minute or more before
  // the ManagedCluster client whose subscription brings the status controller the cluster again.
  const renewed = await renewedAfter(hub.cp.admin, agent.clusterName, up, 'lease renewed through the restarted gRPC server', RECONNECT_TIMEOUT);
  await waitCluster(hub.cp.admin, agent.clusterName, 'Available after the gRPC server restart', RECONNECT_TIMEOUT, joinedAndAvailable);
  const agentRestarts = agent.restarts() - restartsBefore;
  return `server down ${((up - down) / 1000).toFixed(1)} s, lease renewed ${((renewed - up) / 1000).toFixed(0)} s after it was back${agentRestarts > 0 ? `, agent restarted ${agentRestarts}×` : ''}`;
}

const STEP_RUNS: Record<GrpcStep, (hub: GrpcHub, agent: GrpcAgent) => Promise<string>> = { joined, lease, restart };

export async function runGrpcCell(hub: GrpcHub, agent: GrpcAgent, log: (line: string) => void): Promise<Map<GrpcStep, GrpcStepOutcome>> {
  const results = new Map<GrpcStep, GrpcStepOutcome>();
  let blocked: GrpcStep | undefined;
  agent.start();
  try {
    for (const step of GRPC_STEPS) {
      if (blocked) {
        results.set(step, { status: 'fail', detail: `blocked: ${blocked} failed`, seconds: 0 });
        continue;
      }
      const started = Date.now();
      try {
        const detail = await STEP_RUNS[step](hub, agent);
        results.set(step, { status: 'pass', detail, seconds: (Date.now() - started) / 1000 });
      } catch (err) {
        blocked = step;
        results.set(step, { status: 'fail', detail: `${(err as Error).message} (agent log ${agent.logPath})`, seconds: (Date.now() - started) / 1000 });
      }
      log(`gRPC ${agent.kind} agent → ${hub.kind} hub: ${step}: ${results.get(step)!.status} ${results.get(step)!.detail}`);
    }
  } finally {
    await agent.stop();
  }
  return results;
}
