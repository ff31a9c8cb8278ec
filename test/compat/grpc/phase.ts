// The gRPC phase of `npm run test:compat`: registration over OCM's gRPC driver, both ways.
//   a  OCM's agent    → OCM's gRPC server   the baseline: OCM with itself
//   b  OCM's agent    → `ocm-ts hub`        our gRPC server and hub driver
//   c  `ocm-ts agent` → OCM's gRPC server   our agent driver
// Each hub has its own real kube-apiserver; agents run on embedded spokes. Cells on different hubs
// run at the same time (a then c on OCM's hub, b beside them); a cell restarts its hub's gRPC server,
// so two cells never share a hub at once. Every step of every selected cell must pass.
import { join } from 'node:path';
import { startEmbeddedSpoke } from '../matrix/spokes.js';
import { createGrpcAgent, type GrpcAgentKind } from './agents.js';
import { GRPC_STEPS, runGrpcCell, type GrpcStep, type GrpcStepOutcome } from './cells.js';
import { writeGrpcBootstrapConfig } from './grpc-pki.js';
import { startGrpcHub, type GrpcHub, type GrpcHubContext, type GrpcHubKind } from './hubs.js';

interface CellPlan {
  id: 'a' | 'b' | 'c';
  agent: GrpcAgentKind;
  hub: GrpcHubKind;
}

const CELLS: readonly CellPlan[] = [
  { id: 'a', agent: 'OCM', hub: 'OCM' },
  { id: 'b', agent: 'OCM', hub: 'ocm-ts' },
  { id: 'c', agent: 'ocm-ts', hub: 'OCM' },
];

export interface GrpcCellResult extends CellPlan {
  outcomes: Map<GrpcStep, GrpcStepOutcome>;
}

export interface GrpcPhaseInput extends GrpcHubContext {
  /** Cell ids to run (default all). */
  only?: readonly string[];
  log(line: string): void;
}

async function runCell(plan: CellPlan, hub: GrpcHub, input: GrpcPhaseInput): Promise<GrpcCellResult> {
  const cluster = `grpc-${plan.id}`;
  const dir = join(input.runDir, `grpc-cell-${plan.id}`);
  const spoke = await startEmbeddedSpoke(input.runDir, `grpc-spoke-${plan.id}`);
  try {
    const grpcBootstrapConfig = writeGrpcBootstrapConfig(join(input.runDir, `grpc-bootstrap-${plan.id}.yaml`), hub.grpcAddress, hub.pki.caPem, `${hub.token.id}.${hub.token.secret}`);
    const agent = await createGrpcAgent({ kind: plan.agent, clusterName: cluster, spoke, dir, ocmRegistration: input.ocmRegistration, bootstrapKubeconfigPath: hub.bootstrapKubeconfigPath, grpcBootstrapConfig });
    return { ...plan, outcomes: await runGrpcCell(hub, agent, input.log) };
  } finally {
    await spoke.stop();
  }
}

function failedCell(plan: CellPlan, why: string): GrpcCellResult {
  return { ...plan, outcomes: new Map(GRPC_STEPS.map((s) => [s, { status: 'fail', detail: why, seconds: 0 }])) };
}

export async function runGrpcPhase(input: GrpcPhaseInput): Promise<GrpcCellResult[]> {
  const plans = CELLS.filter((c) => !input.only || input.only.length === 0 || input.only.includes(c.id));
  const kinds = [...new Set(plans.map((p) => p.hub))];
  const results: GrpcCellResult[] = [];
  await Promise.all(
    kinds.map(async (kind) => {
      const mine = plans.filter((p) => p.hub === kind);
      let hub: GrpcHub;
      try {
        hub = await startGrpcHub(kind, input);
      } catch (err) {
        for (const p of mine) results.push(failedCell(p, `hub set-up failed: ${(err as Error).message}`));
        return;
      }
      try {
        for (const p of mine) results.push(await runCell(p, hub, input).catch((err: unknown) => failedCell(p, `set-up failed: ${(err as Error).message}`)));
      } finally {
        await hub.stop();
      }
    }),
  );
  return results.sort((x, y) => x.id.localeCompare(y.id));
}

export function renderGrpcTable(results: readonly GrpcCellResult[]): string {
  const head = ['cell', 'agent → server', ...GRPC_STEPS];
  const rows = results.map((r) => [r.id, `${r.agent} → ${r.hub === 'OCM' ? 'OCM server' : 'ocm-ts hub'}`, ...GRPC_STEPS.map((s) => r.outcomes.get(s)?.status ?? '-')]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]): string => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const details = results.flatMap((r) => GRPC_STEPS.map((s) => `  ${r.id} ${s}: ${r.outcomes.get(s)?.detail ?? ''}`));
  return [line(head), ...rows.map(line), '', ...details].join('\n');
}

/** One line per failed step. */
export function grpcProblems(results: readonly GrpcCellResult[]): string[] {
  return results.flatMap((r) => GRPC_STEPS.filter((s) => r.outcomes.get(s)?.status !== 'pass').map((s) => `gRPC ${r.id} (${r.agent} agent → ${r.hub} server): ${s}: ${r.outcomes.get(s)?.detail ?? 'not run'}`));
}
