// Pure rendering of the demo's live fleet table.
import type { ManagedCluster } from '../api/cluster.js';
import type { Lease } from '../api/core.js';
import { conditionTypes } from '../api/constants.js';
import { findCondition } from '../api/conditions.js';
import { humanAge, renderTable } from './cluster-table.js';

export interface FleetRowInput {
  cluster: ManagedCluster | undefined;
  name: string;
  lease: Lease | undefined;
  agentPhase: string;
}

const HEADERS = ['NAME', 'ACCEPTED', 'JOINED', 'AVAILABLE', 'CLOCK SYNCED', 'LEASE AGE', 'VERSION', 'CPU', 'MEMORY', 'ALLOC CPU', 'AGENT'];

function cond(c: ManagedCluster | undefined, type: string): string {
  return findCondition(c?.status?.conditions, type)?.status ?? '-';
}

function fleetRow(r: FleetRowInput, now: number): string[] {
  const renew = r.lease?.spec?.renewTime ? Date.parse(r.lease.spec.renewTime) : undefined;
  return [
    r.name,
    r.cluster ? String(r.cluster.spec?.hubAcceptsClient ?? false) : '-',
    cond(r.cluster, conditionTypes.joined),
    cond(r.cluster, conditionTypes.available),
    cond(r.cluster, conditionTypes.clockSynced),
    renew === undefined ? '-' : humanAge(now - renew),
    r.cluster?.status?.version?.kubernetes ?? '-',
    r.cluster?.status?.capacity?.cpu ?? '-',
    r.cluster?.status?.capacity?.memory ?? '-',
    r.cluster?.status?.allocatable?.cpu ?? '-',
    r.agentPhase,
  ];
}

export function renderFleet(rows: FleetRowInput[], now: number): string {
  return renderTable(HEADERS, rows.map((r) => fleetRow(r, now)));
}

/** A cluster counts as ready when it is accepted, joined and available. */
export function isReady(c: ManagedCluster | undefined): boolean {
  return (
    c?.spec?.hubAcceptsClient === true &&
    findCondition(c.status?.conditions, conditionTypes.joined)?.status === 'True' &&
    findCondition(c.status?.conditions, conditionTypes.available)?.status === 'True'
  );
}
