// `ocm-ts doctor` output: one line per link (✓ ok, ✗ broken, ! warning, - not checked), then what
// is wrong with the first broken link and the command that fixes it; or the same as JSON. Pure.
import type { CheckResult, CheckStatus } from './checks.js';

const MARK: Record<CheckStatus, string> = { ok: '✓', fail: '✗', warn: '!', skip: '-' };

export interface DoctorReport {
  cluster: string;
  hub: string;
  healthy: boolean;
  /** Id of the first broken link, when one is. */
  firstFailure?: string;
  checks: CheckResult[];
}

export function buildReport(cluster: string, hub: string, checks: CheckResult[]): DoctorReport {
  const first = checks.find((c) => c.status === 'fail');
  return { cluster, hub, healthy: first === undefined, ...(first ? { firstFailure: first.id } : {}), checks };
}

export function renderReport(r: DoctorReport): string {
  const width = Math.max(...r.checks.map((c) => c.title.length));
  const lines = [`cluster ${r.cluster} on hub ${r.hub}`];
  for (const c of r.checks) lines.push(`${MARK[c.status]} ${c.title.padEnd(width)}  ${c.detail}`);
  const first = r.checks.find((c) => c.id === r.firstFailure);
  if (first) {
    lines.push('', `✗ ${first.title}: ${first.problem ?? first.detail}`, `  fix: ${first.fix ?? ''}`);
  } else {
    lines.push('', `${r.cluster} is healthy`);
  }
  return lines.join('\n') + '\n';
}
