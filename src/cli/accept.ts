// `ocm-ts accept`: the hub admin's half of the double opt-in, like `clusteradm accept`: approve the
// cluster's pending agent CSRs and set spec.hubAcceptsClient. Idempotent; --wait returns once Joined.
// hubAcceptsClient goes first and the CSRs are approved once the hub reports the cluster accepted
// (its RBAC written; at most 10 s): an agent certificate approved earlier starts the agent's main
// phase against a hub without its RBAC, whose requests then fail with 403 and back off a second.
// Only CSRs that are exactly that cluster's agent identity are approved; the others are reported
// and left pending for the admin to inspect (clusteradm does not deny them either).
import type { CertificateSigningRequest } from '../api/core.js';
import type { ManagedCluster } from '../api/cluster.js';
import { validateClusterCsr } from '../api/cluster-csr.js';
import { conditionTypes, labels } from '../api/constants.js';
import { isConditionTrue, rfc3339 } from '../api/conditions.js';
import type { KubeClient } from '../client/types.js';
import { resourceTypes } from '../client/resource-types.js';
import { isConflict, isNotFound } from '../client/errors.js';
import type { Clock } from '../util/clock.js';

function isDecided(csr: CertificateSigningRequest): boolean {
  return (csr.status?.conditions ?? []).some((c) => (c.type === 'Approved' || c.type === 'Denied') && c.status === 'True');
}

export interface RefusedCsr {
  name: string;
  reason: string;
}

/**
 * Splits the cluster's undecided CSRs into those `accept` approves (valid agent CSRs of this
 * cluster, from a bootstrap identity or the cluster's own agent) and those it refuses, with why.
 * Anyone holding the bootstrap token can label a CSR with any cluster, so the label only selects.
 */
export function triageClusterCsrs(csrs: readonly CertificateSigningRequest[], cluster: string, bootstrapUsers: readonly string[] = []): { approve: CertificateSigningRequest[]; refuse: RefusedCsr[] } {
  const approve: CertificateSigningRequest[] = [];
  const refuse: RefusedCsr[] = [];
  for (const csr of csrs) {
    if (csr.metadata.labels?.[labels.clusterName] !== cluster || isDecided(csr)) continue;
    const v = validateClusterCsr(csr, { bootstrapUsers });
    if (v.valid) approve.push(csr);
    else refuse.push({ name: csr.metadata.name ?? '', reason: v.check === 'requester' ? `${v.reason} (see --bootstrap-users)` : v.reason });
  }
  return { approve, refuse };
}

export interface AcceptResult {
  cluster: string;
  approvedCsrs: string[];
  accepted: 'newly' | 'already';
}

export interface AcceptOptions {
  client: KubeClient;
  clock: Clock;
  signal?: AbortSignal;
  /** Wait until the cluster is Joined (approving CSRs that appear meanwhile). */
  wait: boolean;
  timeoutMs: number;
  /** Progress lines for the user. */
  say: (line: string) => void;
  /** Requesters trusted as bootstrap identities besides bootstrap tokens (e.g. a bootstrap service account). */
  bootstrapUsers?: readonly string[];
}

export class AcceptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcceptError';
  }
}

/** Approves what passes; reports each refused CSR once per run (`reported` remembers them). */
async function approvePending(opts: AcceptOptions, cluster: string, reported: Set<string>): Promise<string[]> {
  const csrClient = opts.client.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  const list = await csrClient.list({ labelSelector: `${labels.clusterName}=${cluster}`, signal: opts.signal });
  const { approve, refuse } = triageClusterCsrs(list.items, cluster, opts.bootstrapUsers);
  for (const r of refuse) {
    if (reported.has(r.name)) continue;
    reported.add(r.name);
    opts.say(`refused CSR ${r.name} of cluster ${cluster}: ${r.reason}`);
  }
  const approved: string[] = [];
  for (const csr of approve) {
    const now = rfc3339(new Date(opts.clock.now()));
    const next: CertificateSigningRequest = {
      ...csr,
      status: {
        ...csr.status,
        conditions: [
          ...(csr.status?.conditions ?? []),
          { type: 'Approved', status: 'True', reason: 'ApprovedByOcmTsAccept', message: 'Approved by the hub admin with ocm-ts accept.', lastUpdateTime: now },
        ],
      },
    };
    try {
      await csrClient.updateSubresource(next, 'approval', { signal: opts.signal });
      approved.push(csr.metadata.name ?? '');
    } catch (err) {
      // Someone else decided it meanwhile (the hub approver, another admin): not an error.
      if (!isConflict(err) && !isNotFound(err)) throw err;
    }
  }
  return approved;
}

/** Longest the CSR approval waits for the hub to report the cluster accepted. */
const ACCEPTED_WAIT_MS = 10_000;

/**
 * Resolves once the hub controller has set HubAcceptedManagedCluster, or after `waitMs` (no hub
 * controller, a client that may not watch): woken by a watch on the one ManagedCluster, not a poll.
 */
async function untilHubAccepted(opts: AcceptOptions, name: string, waitMs: number): Promise<void> {
  const mcClient = opts.client.resource<ManagedCluster>(resourceTypes.managedClusters);
  const ac = new AbortController();
  const onAbort = (): void => ac.abort();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = opts.clock.setTimeout(() => ac.abort(), Math.max(0, waitMs));
  try {
    const current = await mcClient.get(name, { signal: ac.signal });
    if (isConditionTrue(current.status?.conditions, conditionTypes.hubAccepted)) return;
    const events = mcClient.watch({ resourceVersion: current.metadata.resourceVersion ?? '', fieldSelector: `metadata.name=${name}`, signal: ac.signal });
    for await (const ev of events) {
      if (ev.type === 'ERROR') return;
      if (isConditionTrue((ev.object as ManagedCluster).status?.conditions, conditionTypes.hubAccepted)) return;
    }
  } catch {
    // Timed out, stopped, or not allowed to watch: approve now, as without the wait.
  } finally {
    timer.cancel();
    opts.signal?.removeEventListener('abort', onAbort);
    ac.abort();
  }
}

async function setAccepted(opts: AcceptOptions, cluster: ManagedCluster): Promise<'newly' | 'already'> {
  if (cluster.spec?.hubAcceptsClient === true) return 'already';
  await opts.client
    .resource<ManagedCluster>(resourceTypes.managedClusters)
    .patch(cluster.metadata.name ?? '', 'merge', { spec: { hubAcceptsClient: true } }, { signal: opts.signal });
  return 'newly';
}

export async function acceptCluster(opts: AcceptOptions, name: string): Promise<AcceptResult> {
  const mcClient = opts.client.resource<ManagedCluster>(resourceTypes.managedClusters);
  const deadline = opts.clock.now() + opts.timeoutMs;
  let cluster: ManagedCluster | undefined;
  // With --wait, the agent may not have registered yet: wait for the ManagedCluster too.
  for (;;) {
    try {
      cluster = await mcClient.get(name, { signal: opts.signal });
      break;
    } catch (err) {
      if (!isNotFound(err)) throw err;
      if (!opts.wait) throw new AcceptError(`managed cluster ${name} not found (has its agent joined yet?)`);
      if (opts.clock.now() > deadline) throw new AcceptError(`timed out waiting for managed cluster ${name} to appear`);
      await opts.clock.sleep(500, opts.signal);
    }
  }
  const reported = new Set<string>();
  const accepted = await setAccepted(opts, cluster);
  await untilHubAccepted(opts, name, Math.min(ACCEPTED_WAIT_MS, deadline - opts.clock.now()));
  opts.signal?.throwIfAborted();
  const approved = await approvePending(opts, name, reported);
  for (const csr of approved) opts.say(`approved CSR ${csr} of cluster ${name}`);
  if (accepted === 'newly') opts.say(`set hubAcceptsClient to true for cluster ${name}`);
  else if (approved.length === 0) opts.say(`nothing to accept for cluster ${name}: it is already accepted and has no pending CSR`);
  if (!opts.wait) return { cluster: name, approvedCsrs: approved, accepted };
  for (;;) {
    const current = await mcClient.get(name, { signal: opts.signal });
    if (isConditionTrue(current.status?.conditions, conditionTypes.joined)) {
      opts.say(`cluster ${name} joined`);
      return { cluster: name, approvedCsrs: approved, accepted };
    }
    if (opts.clock.now() > deadline) throw new AcceptError(`timed out waiting for cluster ${name} to join`);
    // CSRs created after acceptance (the agent was still bootstrapping) are approved as they come.
    for (const csr of await approvePending(opts, name, reported)) {
      approved.push(csr);
      opts.say(`approved CSR ${csr} of cluster ${name}`);
    }
    await opts.clock.sleep(250, opts.signal);
  }
}
