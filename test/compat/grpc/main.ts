// The gRPC phase on its own, to iterate on it: `node --import tsx test/compat/grpc/main.ts [cells]`
// (cells: a,b,c; default all). Builds or reuses the reference binaries, starts etcd, runs the phase.
// OCM_TS_COMPAT_KEEP=1 keeps the run's folder (every process's log) after a passing run too.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopAllChildren } from '../infra/child-process.js';
import { startEtcd } from '../infra/etcd.js';
import { ensureReferenceBinaries } from '../tools/build.js';
import { checkToolchain } from '../tools/toolchain.js';
import { grpcProblems, renderGrpcTable, runGrpcPhase } from './phase.js';

const t0 = Date.now();
const say = (line: string): void => {
  process.stdout.write(`[grpc ${((Date.now() - t0) / 1000).toFixed(1).padStart(7)} s] ${line}\n`);
};

async function main(): Promise<number> {
  const runDir = mkdtempSync(join(tmpdir(), 'ocm-ts-compat-grpc-'));
  say(`run folder ${runDir}`);
  const tools = await checkToolchain();
  const bins = await ensureReferenceBinaries(runDir, say);
  const etcd = await startEtcd(tools.etcd, runDir);
  try {
    const results = await runGrpcPhase({
      runDir,
      etcd,
      kube: { kubeApiserver: bins.kubeApiserver, kubeControllerManager: bins.kubeControllerManager },
      ocmRegistration: bins.ocmRegistration,
      ocmServer: bins.ocmServer,
      only: (process.argv[2] ?? '').split(',').filter(Boolean),
      log: say,
    });
    process.stdout.write(`\n${renderGrpcTable(results)}\n\n`);
    const problems = grpcProblems(results);
    if (problems.length > 0) {
      for (const p of problems) process.stdout.write(`  - ${p}\n`);
      say(`logs kept in ${runDir}`);
      return 1;
    }
  } finally {
    await etcd.stop();
  }
  if (process.env.OCM_TS_COMPAT_KEEP === '1') say(`logs kept in ${runDir}`);
  else rmSync(runDir, { recursive: true, force: true });
  return 0;
}

const bail = (why: string) => (): void => {
  process.stderr.write(`grpc: ${why}\n`);
  void stopAllChildren().finally(() => process.exit(1));
};
process.once('SIGINT', bail('interrupted'));
process.once('SIGTERM', bail('terminated'));

void main()
  .catch((err: unknown) => {
    process.stderr.write(`grpc: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  })
  .then(async (code) => {
    await stopAllChildren();
    process.exit(code);
  });
