// The dashboard's view of the fleet, built from the API objects the signed-in user may read: table
// rows, each cluster's registration timeline, pending CSRs, unaccepted clusters, cluster sets and the
// chart's series. Pure: the stream (./fleet-stream.ts) feeds it objects and the times it observed.

import { X509Certificate } from 'node:crypto';
import type { ManagedCluster, ManagedClusterSet } from '../api/cluster.js';
import { validateClusterCsr } from '../api/cluster-csr.js';
import { conditionTypes, labels, names } from '../api/constants.js';
import { findCondition } from '../api/conditions.js';
import type { CertificateSigningRequest, Lease } from '../api/core.js';
import { setSelects } from '../hub/managedclusterset/cluster-set-selector.js';
import type { ChartPoint, ClusterSetView, ConditionStatus, FleetRow, FleetState, PendingCsr, TimelineStep } from './model.js';

export interface FleetObjects {
  clusters: readonly ManagedCluster[];
  leases: readonly Lease[];
  csrs: readonly CertificateSigningRequest[];
  sets: readonly ManagedClusterSet[];
}

/**
 * Times the dashboard saw something the API does not record: a CSR's certificate appearing (keyed
 * by CSR name). A CSR signed before the dashboard started has no entry; its approval time stands in.
 */
export type ObservedTimes = ReadonlyMap<string, string>;

function conditionStatus(c: ManagedCluster, type: string): ConditionStatus {
  const s = findCondition(c.status?.conditions, type)?.status;
  return s === 'True' || s === 'False' || s === 'Unknown' ? s : '';
}

/** When the condition last became True; undefined unless it is True now. */
function trueSince(c: ManagedCluster, type: string): string | undefined {
  const cond = findCondition(c.status?.conditions, type);
  return cond?.status === 'True' ? cond.lastTransitionTime : undefined;
}

function csrCondition(csr: CertificateSigningRequest, type: string): { lastUpdateTime?: string; lastTransitionTime?: string } | undefined {
  return csr.status?.conditions?.find((c) => c.type === type && c.status === 'True');
}

const isApproved = (csr: CertificateSigningRequest): boolean => csrCondition(csr, 'Approved') !== undefined;
const isDecided = (csr: CertificateSigningRequest): boolean => isApproved(csr) || csrCondition(csr, 'Denied') !== undefined;

/** The cluster's own agent CSRs (not its add-ons'), oldest first. */
function agentCsrsOf(cluster: string, csrs: readonly CertificateSigningRequest[]): CertificateSigningRequest[] {
  return csrs
    .filter((c) => c.metadata.labels?.[labels.clusterName] === cluster && c.metadata.labels?.[labels.addonName] === undefined)
    .sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
}

/** notAfter of the PEM certificate in a CSR's status (base64 of the PEM); undefined when unreadable. */
function certificateNotAfter(statusCertificate: string | undefined): string | undefined {
  if (!statusCertificate) return undefined;
  try {
    return new Date(new X509Certificate(Buffer.from(statusCertificate, 'base64')).validTo).toISOString();
  } catch {
    return undefined;
  }
}

const approvedAt = (csr: CertificateSigningRequest): string | undefined => {
  const c = csrCondition(csr, 'Approved');
  return c?.lastUpdateTime ?? c?.lastTransitionTime;
};

/**
 * The registration flow of one cluster: created → CSR created → approved → signed → accepted →
 * joined → available. The CSR steps follow the cluster's first CSR (its join); a cluster that
 * rejoined with credentials it already had has no CSR and shows those steps without a time.
 */
export function buildTimeline(cluster: ManagedCluster, csrs: readonly CertificateSigningRequest[], observed: ObservedTimes = new Map()): TimelineStep[] {
  const own = agentCsrsOf(cluster.metadata.name ?? '', csrs);
  const first = own.find(isApproved) ?? own[0];
  const signed = first?.status?.certificate ? (observed.get(first.metadata.name ?? '') ?? approvedAt(first)) : undefined;
  const step = (id: TimelineStep['id'], label: string, at: string | undefined): TimelineStep => (at === undefined ? { id, label } : { id, label, at });
  return [
    step('created', 'ManagedCluster created', cluster.metadata.creationTimestamp),
    step('csrCreated', 'CSR created', first?.metadata.creationTimestamp),
    step('approved', 'CSR approved', first ? approvedAt(first) : undefined),
    step('signed', 'certificate signed', signed),
    step('accepted', 'accepted by the hub', trueSince(cluster, conditionTypes.hubAccepted)),
    step('joined', 'Joined', trueSince(cluster, conditionTypes.joined)),
    step('available', 'Available', trueSince(cluster, conditionTypes.available)),
  ];
}

/** One table row; `leases` may hold every namespace's leases: only the cluster's own counts. */
export function buildRow(cluster: ManagedCluster, objs: FleetObjects, observed: ObservedTimes = new Map()): FleetRow {
  const name = cluster.metadata.name ?? '';
  const lease = objs.leases.find((l) => l.metadata.namespace === name && l.metadata.name === names.clusterLease);
  const signed = agentCsrsOf(name, objs.csrs).filter((c) => isApproved(c) && c.status?.certificate);
  const newest = signed[signed.length - 1];
  const certNotAfter = certificateNotAfter(newest?.status?.certificate);
  const row: FleetRow = {
    name,
    hubAccepted: cluster.spec?.hubAcceptsClient === true,
    urls: (cluster.spec?.managedClusterClientConfigs ?? []).map((c) => c.url).filter((u): u is string => typeof u === 'string'),
    joined: conditionStatus(cluster, conditionTypes.joined),
    available: conditionStatus(cluster, conditionTypes.available),
    timeline: buildTimeline(cluster, objs.csrs, observed),
  };
  if (cluster.metadata.creationTimestamp) row.createdAt = cluster.metadata.creationTimestamp;
  const renew = lease?.spec?.renewTime ?? lease?.spec?.acquireTime;
  if (renew) row.leaseRenewedAt = renew;
  if (certNotAfter) row.certNotAfter = certNotAfter;
  const set = cluster.metadata.labels?.[labels.clusterSet];
  if (set) row.clusterSet = set;
  const version = cluster.status?.version?.kubernetes;
  if (version) row.kubernetesVersion = version;
  return row;
}

/** Undecided agent CSRs, with why `accept` would refuse each (the same rules as `ocm-ts accept`). */
function pendingCsrs(csrs: readonly CertificateSigningRequest[]): PendingCsr[] {
  return csrs
    .filter((c) => c.metadata.labels?.[labels.clusterName] !== undefined && c.metadata.labels?.[labels.addonName] === undefined && !isDecided(c))
    .map((c) => {
      const verdict = validateClusterCsr(c);
      const out: PendingCsr = { name: c.metadata.name ?? '', cluster: c.metadata.labels?.[labels.clusterName] ?? '', requester: c.spec?.username ?? '' };
      if (c.metadata.creationTimestamp) out.createdAt = c.metadata.creationTimestamp;
      if (!verdict.valid) out.problem = verdict.reason;
      return out;
    })
    .sort((a, b) => a.cluster.localeCompare(b.cluster) || a.name.localeCompare(b.name));
}

function clusterSets(sets: readonly ManagedClusterSet[], clusters: readonly ManagedCluster[]): ClusterSetView[] {
  return [...sets]
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))
    .map((s) => {
      let members: string[];
      try {
        members = clusters.filter((c) => setSelects(s, c.metadata.labels)).map((c) => c.metadata.name ?? '');
      } catch {
        members = [];
      }
      return { name: s.metadata.name ?? '', selectorType: s.spec?.clusterSelector?.selectorType || 'ExclusiveClusterSetLabel', clusters: members.sort() };
    });
}

/** The fleet's counts now. */
export function countFleet(clusters: readonly ManagedCluster[], t: number): ChartPoint {
  return {
    t,
    joined: clusters.filter((c) => conditionStatus(c, conditionTypes.joined) === 'True').length,
    available: clusters.filter((c) => conditionStatus(c, conditionTypes.available) === 'True').length,
    total: clusters.length,
  };
}

/**
 * The chart's past as the objects tell it: each cluster counts from its creation, as joined from
 * its Joined transition and as available from its Available one (dips before the last transition
 * are not recorded by the API; the stream adds the ones it sees).
 */
export function seedHistory(clusters: readonly ManagedCluster[], now: number): ChartPoint[] {
  const events: { t: number; d: 'total' | 'joined' | 'available' }[] = [];
  for (const c of clusters) {
    const created = Date.parse(c.metadata.creationTimestamp ?? '');
    events.push({ t: Number.isFinite(created) ? created : now, d: 'total' });
    for (const [type, d] of [[conditionTypes.joined, 'joined'], [conditionTypes.available, 'available']] as const) {
      const since = Date.parse(trueSince(c, type) ?? '');
      if (Number.isFinite(since)) events.push({ t: Math.min(since, now), d });
      else if (conditionStatus(c, type) === 'True') events.push({ t: now, d });
    }
  }
  events.sort((a, b) => a.t - b.t);
  const points: ChartPoint[] = [];
  const cur = { joined: 0, available: 0, total: 0 };
  for (const e of events) {
    cur[e.d]++;
    const last = points[points.length - 1];
    if (last && last.t === e.t) Object.assign(last, cur);
    else points.push({ t: e.t, ...cur });
  }
  return points;
}

/** Appends `p` when the counts changed, keeping at most `max` points. */
export function appendPoint(history: readonly ChartPoint[], p: ChartPoint, max = 500): ChartPoint[] {
  const last = history[history.length - 1];
  if (last && last.joined === p.joined && last.available === p.available && last.total === p.total) return [...history];
  const next = [...history, p];
  return next.length > max ? next.slice(next.length - max) : next;
}

export function buildFleetState(o: { objs: FleetObjects; observed?: ObservedTimes; history: readonly ChartPoint[]; now: number; user: string; errors?: readonly string[] }): FleetState {
  const clusters = [...o.objs.clusters].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return {
    now: new Date(o.now).toISOString(),
    user: o.user,
    rows: clusters.map((c) => buildRow(c, o.objs, o.observed)),
    pendingCsrs: pendingCsrs(o.objs.csrs),
    unaccepted: clusters.filter((c) => c.spec?.hubAcceptsClient !== true && !c.metadata.deletionTimestamp).map((c) => c.metadata.name ?? ''),
    sets: clusterSets(o.objs.sets, clusters),
    chart: [...o.history],
    errors: [...(o.errors ?? [])],
  };
}
