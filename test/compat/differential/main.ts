// Standalone run of the differential test while developing:
//   node --import tsx test/compat/differential/main.ts [--only TEXT] [--keep] [--bin-dir DIR] [--kubectl PATH]
// starts etcd, a real control plane and an embedded server, runs every step and prints the report.
// The reference binaries come from the compatibility suite's cache (built on the first run), or
// from --bin-dir (kube-apiserver and kube-controller-manager) and --kubectl.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startTestApiServer } from '../../helpers/embedded-server.js';
import { stopAllChildren } from '../infra/child-process.js';
import { startEtcd } from '../infra/etcd.js';
import { startKubeControlPlane } from '../infra/kube-control-plane.js';
import { checkToolchain } from '../tools/toolchain.js';
import { ensureReferenceBinaries } from '../tools/build.js';
import { EMBEDDED_SERVER_OPTIONS, runDifferential } from './differential.js';

const { values } = parseArgs({ options: { only: { type: 'string' }, keep: { type: 'boolean', default: false }, 'bin-dir': { type: 'string' }, kubectl: { type: 'string' } } });
const runDir = mkdtempSync(join(tmpdir(), 'ocm-ts-differential-'));
const log = (line: string): void => void process.stdout.write(`${line}\n`);
let failed = true;
try {
  const tools = await checkToolchain();
  const binDir = values['bin-dir'];
  const built = binDir ? undefined : await ensureReferenceBinaries(runDir, log);
  const bins = {
    kubeApiserver: built?.kubeApiserver ?? join(binDir ?? '', 'kube-apiserver'),
    kubeControllerManager: built?.kubeControllerManager ?? join(binDir ?? '', 'kube-controller-manager'),
    kubectl: values.kubectl ?? built?.kubectl ?? join(binDir ?? '', 'kubectl'),
  };
  const etcd = await startEtcd(tools.etcd, runDir);
  const kube = await startKubeControlPlane({ name: 'diff', runDir, etcd, binaries: bins });
  const embedded = await startTestApiServer(EMBEDDED_SERVER_OPTIONS);
  try {
    const report = await runDifferential({
      runDir,
      kube,
      embedded: { url: embedded.url, adminKubeconfigPath: embedded.adminKubeconfigPath, caPem: embedded.server.pki.caPem },
      kubectl: bins.kubectl,
      log,
      ...(values.only ? { only: values.only } : {}),
    });
    const equal = report.steps.filter((s) => s.equal).length;
    log(`\n${report.steps.length} steps: ${equal} equal, ${report.explained.length} explained, ${report.unexplained.length} unexplained`);
    log(`report: ${join(runDir, 'differential-report.json')}`);
    failed = report.unexplained.length > 0;
  } finally {
    await embedded.stop();
    await kube.stop();
  }
} finally {
  await stopAllChildren();
  if (!values.keep && !failed) rmSync(runDir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
