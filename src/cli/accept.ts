// `ocm-ts accept`: the hub admin's half of the double opt-in, like `clusteradm accept`: approve the
// cluster's pending CSRs and set spec.hubAcceptsClient. Idempotent; --wait returns once Joined.
import type { CertificateSigningRequest } from '../api/core.js';
import type { ManagedCluster } from '../api/cluster.js';
import { conditionTypes, labels, names } from '../api/constants.js';
import { isConditionTrue, rfc3339 } from '../api/conditions.js';
import type { KubeClient } from '../client/types.js';
import { resourceTypes } from '../client/resource-types.js';
import { isConflict, isNotFound } from '../client/errors.js';
import type { Clock } from '../util/clock.js';

/** CSRs of this cluster's agent (not an addon's) that are neither approved nor denied yet. */
export function pendingClusterCsrs(csrs: readonly CertificateSigningRequest[], cluster: string): CertificateSigningRequest[] {
  return csrs.filter((csr) => {
    const l = csr.metadata.labels ?? {};
    if (l[labels.clusterName] !== cluster || l[labels.addonName] !== undefined) return false;
    if (csr.spec.signerName !== names.kubeApiserverClientSigner) return false;
    const decided = (csr.status?.conditions ?? []).some((c) => (c.type === 'Approved' || c.type === 'Denied') && c.status === 'True');
    return !decided;
  });
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
}

export class AcceptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AcceptError';
  }
}

async function approvePending(opts: AcceptOptions, cluster: string): Promise<string[]> {
  const csrClient = opts.client.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  const list = await csrClient.list({ labelSelector: `${labels.clusterName}=${cluster}`, signal: opts.signal });
  const approved: string[] = [];
  for (const csr of pendingClusterCsrs(list.items, cluster)) {
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
  const approved = await approvePending(opts, name);
  const accepted = await setAccepted(opts, cluster);
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
    for (const csr of await approvePending(opts, name)) {
      approved.push(csr);
      opts.say(`approved CSR ${csr} of cluster ${name}`);
    }
    await opts.clock.sleep(250, opts.signal);
  }
}
