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

function renderFleet(rows: FleetRowInput[], now: number): string {
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

/** ANSI: cursor home, then clear to the end of the screen (what `watch` does before each frame). */
const HOME_AND_CLEAR = '\x1b[H\x1b[J';

export interface FleetFrameInput {
  rows: FleetRowInput[];
  now: number;
  hubUrl: string;
}

/**
 * What the demo writes at each refresh. On a terminal, the whole table redrawn in place. Elsewhere
 * (a pipe, a file, a CI log), only what changed since the last refresh, one line per change, so the
 * output stays readable as a log: a line per cluster whose state changed and a summary line when
 * the count of ready clusters changed. Lease age is left out of the comparison: it changes at every
 * refresh.
 */
export function createFleetView(opts: { tty: boolean }): (input: FleetFrameInput) => string {
  const lastState = new Map<string, string>();
  let lastReady = -1;
  return ({ rows, now, hubUrl }) => {
    const ready = rows.filter((r) => isReady(r.cluster)).length;
    if (opts.tty) {
      const header = `${new Date(now).toISOString()}  hub ${hubUrl}  ${ready}/${rows.length} ready  (Ctrl-C to stop)`;
      return `${HOME_AND_CLEAR}${header}\n\n${renderFleet(rows, now)}`;
    }
    let out = '';
    for (const r of rows) {
      const state = rowState(r);
      if (lastState.get(r.name) === state) continue;
      lastState.set(r.name, state);
      out += `${r.name}: ${state}\n`;
    }
    if (ready !== lastReady) {
      lastReady = ready;
      out += `${new Date(now).toISOString()}  ${ready}/${rows.length} ready\n`;
    }
    return out;
  };
}

function rowState(r: FleetRowInput): string {
  return [
    `accepted=${r.cluster ? String(r.cluster.spec?.hubAcceptsClient ?? false) : '-'}`,
    `joined=${cond(r.cluster, conditionTypes.joined)}`,
    `available=${cond(r.cluster, conditionTypes.available)}`,
    `clock-synced=${cond(r.cluster, conditionTypes.clockSynced)}`,
    `agent=${r.agentPhase}`,
  ].join(' ');
}
