// The matrix: every hub × every agent on an embedded spoke, plus each agent on a real kube-apiserver
// spoke (against our embedded hub). Cells run a few at a time; the table marks each scenario pass,
// fail or N/A, and the verdict compares every cell with OCM's own pair (OCM's hub on a real
// kube-apiserver with OCM's agent): a scenario that pair passes must pass everywhere.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeControlPlane } from '../infra/kube-control-plane.js';
import { AGENT_KINDS, type AgentKind } from './agents.js';
import type { Hub, HubKind } from './hubs.js';
import { runCell, SCENARIOS, type ScenarioName, type StepOutcome } from './scenarios.js';
import { realSpoke, startEmbeddedSpoke, type Spoke, type SpokeKind } from './spokes.js';

export interface CellResult {
  hub: HubKind;
  agent: AgentKind;
  spoke: SpokeKind;
  outcomes: Map<ScenarioName, StepOutcome>;
}

export interface MatrixInput {
  runDir: string;
  hubs: Map<HubKind, Hub>;
  realSpoke: KubeControlPlane;
  kubectl: string;
  ocmRegistration: string;
  parallel: number;
  log(line: string): void;
}

interface CellPlan {
  hub: HubKind;
  agent: AgentKind;
  spoke: SpokeKind;
}

const REFERENCE = { hub: 'OCM@kube' as HubKind, agent: 'OCM' as AgentKind };

/**
 * Cells ordered agent by agent, so that the cells running at the same time are on different hubs:
 * every hub, OCM's reference hub included, admits one cell's joins at a time. Two cells on one hub
 * at once doubled that hub's burst on a 2-core machine, and a join storm on a starved hub delays
 * admission of the ManagedCluster past the auto-approved CSR (see the agents' bootstrap phase).
 */
function planCells(hubs: readonly HubKind[]): CellPlan[] {
  const cells: CellPlan[] = [];
  for (const agent of AGENT_KINDS) for (const hub of hubs) cells.push({ hub, agent, spoke: 'ocm-ts' });
  // The real-kube spoke cells join our embedded hub: only when it runs (OCM_TS_COMPAT_HUBS may leave it out).
  if (hubs.includes('ocm-ts')) for (const agent of AGENT_KINDS) cells.push({ hub: 'ocm-ts', agent, spoke: 'kube' });
  return cells;
}

async function pool<T>(items: readonly T[], width: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(width, items.length)) }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

export async function runMatrix(input: MatrixInput): Promise<CellResult[]> {
  const cells = planCells([...input.hubs.keys()]);
  const results: CellResult[] = [];
  const shared = await realSpoke(input.realSpoke);
  await pool(cells, input.parallel, async (cell, index) => {
    const hub = input.hubs.get(cell.hub)!;
    const cellDir = join(input.runDir, `cell-${index}`);
    mkdirSync(cellDir, { recursive: true });
    const spokes: Spoke[] = [];
    const outcomes = await runCell({
      hub,
      agentKind: cell.agent,
      cellDir,
      prefix: `c${index}`,
      kubectl: input.kubectl,
      ocmRegistration: input.ocmRegistration,
      log: input.log,
      ...(cell.spoke === 'kube' ? { onlyTracks: { names: ['a'], reason: 'run on embedded spokes (one OCM agent per real spoke)' } } : {}),
      async spokeFor(track) {
        if (cell.spoke === 'kube') {
          // OCM's agent always uses open-cluster-management-agent; ours takes --namespace.
          return { spoke: shared, namespace: cell.agent === 'OCM' ? 'open-cluster-management-agent' : 'open-cluster-management-agent-ocm-ts' };
        }
        const spoke = await startEmbeddedSpoke(cellDir, `spoke-${track}`);
        spokes.push(spoke);
        return { spoke, namespace: 'open-cluster-management-agent' };
      },
    });
    await Promise.all(spokes.map((s) => s.stop()));
    results.push({ ...cell, outcomes });
  });
  return results;
}

const mark = (o: StepOutcome | undefined): string => (!o ? '?' : o.status === 'pass' ? 'pass' : o.status === 'fail' ? 'FAIL' : 'n/a');

const cellLabel = (c: { hub: HubKind; agent: AgentKind; spoke: SpokeKind }): string => `hub ${c.hub} × agent ${c.agent} on ${c.spoke === 'kube' ? 'kube' : 'ocm-ts'} spoke`;

/** The verdict: every failure of a scenario that OCM's own pair passes. */
export function judge(results: readonly CellResult[]): string[] {
  const refs = results.filter((r) => r.hub === REFERENCE.hub && r.agent === REFERENCE.agent);
  const problems: string[] = [];
  for (const s of SCENARIOS) {
    // Without the reference pair in the run (a hub filter), every failure counts.
    const refPasses = refs.length === 0 || refs.some((r) => r.outcomes.get(s)?.status === 'pass');
    for (const r of results) {
      const o = r.outcomes.get(s);
      if (o?.status !== 'fail') continue;
      if (refPasses) problems.push(`${cellLabel(r)}: ${s}: ${o.detail}`);
    }
  }
  return problems;
}

export function renderTable(results: readonly CellResult[]): string {
  const sorted = [...results].sort((a, b) => cellLabel(a).localeCompare(cellLabel(b)));
  const header = ['scenario', ...sorted.map((_, i) => `[${i + 1}]`)];
  const rows = SCENARIOS.map((s) => [s, ...sorted.map((r) => mark(r.outcomes.get(s)))]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cols: string[]): string => `| ${cols.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  const out = [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line), ''];
  sorted.forEach((r, i) => out.push(`[${i + 1}] ${cellLabel(r)}`));
  const notes: string[] = [];
  sorted.forEach((r, i) => {
    for (const s of SCENARIOS) {
      const o = r.outcomes.get(s);
      if (o && (o.status !== 'pass' || o.detail)) notes.push(`[${i + 1}] ${s}: ${o.status}${o.detail ? ` — ${o.detail}` : ''}`);
    }
  });
  if (notes.length > 0) out.push('', ...notes);
  return out.join('\n');
}
