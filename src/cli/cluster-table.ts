// Pure rendering of `ocm-ts get clusters`: the columns `kubectl get managedclusters` shows
// (the CRD's printer columns), plus a few more with -o wide.
import type { ManagedCluster } from '../api/cluster.js';
import { conditionTypes, labels } from '../api/constants.js';
import { findCondition } from '../api/conditions.js';

export type TableFormat = 'table' | 'wide';

/** kubectl's short age: 45s, 12m, 3h, 5d (two units below a day, as kubectl's HumanDuration). */
export function humanAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 === 0 ? '' : `${s % 60}s`}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8) return `${h}h${m % 60 === 0 ? '' : `${m % 60}m`}`;
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

function conditionStatus(c: ManagedCluster, type: string): string {
  return findCondition(c.status?.conditions, type)?.status ?? '';
}

function clusterRow(c: ManagedCluster, now: number, format: TableFormat): string[] {
  const created = c.metadata.creationTimestamp ? Date.parse(c.metadata.creationTimestamp) : now;
  const row = [
    c.metadata.name ?? '',
    String(c.spec?.hubAcceptsClient ?? false),
    (c.spec?.managedClusterClientConfigs ?? []).map((cc) => cc.url).join(','),
    conditionStatus(c, conditionTypes.joined),
    conditionStatus(c, conditionTypes.available),
    humanAge(now - created),
  ];
  if (format === 'wide') {
    row.push(
      c.metadata.labels?.[labels.clusterSet] ?? '',
      c.status?.version?.kubernetes ?? '',
      c.status?.capacity?.cpu ?? '',
      c.status?.capacity?.memory ?? '',
      conditionStatus(c, conditionTypes.clockSynced),
    );
  }
  return row;
}

const TABLE_HEADERS = ['NAME', 'HUB ACCEPTED', 'MANAGED CLUSTER URLS', 'JOINED', 'AVAILABLE', 'AGE'];
const WIDE_HEADERS = [...TABLE_HEADERS, 'CLUSTERSET', 'KUBERNETES VERSION', 'CPU', 'MEMORY', 'CLOCK SYNCED'];

/** Left-aligned columns separated by three spaces, as kubectl prints them. */
export function renderTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!)))
      .join('   ')
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

export function renderClusters(clusters: ManagedCluster[], now: number, format: TableFormat): string {
  if (clusters.length === 0) return 'No resources found\n';
  const sorted = [...clusters].sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  return renderTable(format === 'wide' ? WIDE_HEADERS : TABLE_HEADERS, sorted.map((c) => clusterRow(c, now, format)));
}
