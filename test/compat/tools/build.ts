// Builds the reference binaries once per pinned version into a cache outside the repository
// (default ~/.cache/ocm-ts/compat, or OCM_TS_COMPAT_CACHE), so a second run starts in seconds.
// A stamp written after a successful build records what was built; a changed pin or go.sum builds
// again into a fresh folder.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { exitCode, startChild } from '../infra/child-process.js';
import { KUBE_VERSION, OCM_VERSION } from '../versions.js';

export interface ReferenceBinaries {
  kubeApiserver: string;
  kubeControllerManager: string;
  kubectl: string;
  ocmRegistration: string;
  /** OCM's `server` binary (its `grpc` subcommand is the hub's gRPC CloudEvents server). */
  ocmServer: string;
  /** Seconds each build took in this run; 0 when it came from the cache. */
  buildSeconds: { kube: number; ocm: number; ocmServer: number };
}

const kubeModuleDir = new URL('../kube/', import.meta.url).pathname;
const ocmModuleDir = new URL('../ocm/', import.meta.url).pathname;
const ocmServerModuleDir = new URL('../ocm-server/', import.meta.url).pathname;

const moduleDigest = (dir: string): string => digest(readFileSync(join(dir, 'go.mod'), 'utf8'), readFileSync(join(dir, 'go.sum'), 'utf8'));

function cacheRoot(): string {
  return process.env.OCM_TS_COMPAT_CACHE ?? join(homedir(), '.cache', 'ocm-ts', 'compat');
}

function digest(...parts: string[]): string {
  const h = createHash('sha256');
  for (const p of parts) h.update(p).update('\0');
  return h.digest('hex').slice(0, 12);
}

async function goBuild(name: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, logDir: string): Promise<void> {
  const child = startChild({ name, command: 'go', args, cwd, env: { ...process.env, ...env }, logPath: join(logDir, `${name}.log`) });
  const code = await exitCode(child);
  if (code !== 0) {
    const tail = readFileSync(child.logPath, 'utf8').split('\n').slice(-25).join('\n');
    throw new Error(`${name} failed (exit ${String(code)}); log ${child.logPath}:\n${tail}`);
  }
}

function isCached(dir: string, stampValue: string): boolean {
  const stamp = join(dir, 'built.stamp');
  return existsSync(stamp) && readFileSync(stamp, 'utf8') === stampValue;
}

async function cached(dir: string, stampValue: string, build: () => Promise<void>): Promise<number> {
  if (isCached(dir, stampValue)) return 0;
  mkdirSync(join(dir, 'bin'), { recursive: true });
  const started = Date.now();
  await build();
  writeFileSync(join(dir, 'built.stamp'), stampValue);
  return (Date.now() - started) / 1000;
}

export async function ensureReferenceBinaries(logDir: string, progress: (line: string) => void): Promise<ReferenceBinaries> {
  const kubeDir = join(cacheRoot(), `kube-${KUBE_VERSION}-${moduleDigest(kubeModuleDir)}`);
  const ocmDir = join(cacheRoot(), `ocm-${OCM_VERSION}-${moduleDigest(ocmModuleDir)}`);
  const kubeBin = join(kubeDir, 'bin');
  const ocmBin = join(ocmDir, 'bin');
  const buildFlags = ['-trimpath', '-buildvcs=false'];
  // What Kubernetes' own build stamps in (hack/lib/version.sh), so /version and kubectl version
  // name the release rather than v0.0.0-master.
  const [major, minor] = KUBE_VERSION.replace(/^v/, '').split('.');
  const versionVars = ['k8s.io/component-base/version', 'k8s.io/client-go/pkg/version'].flatMap((pkg) => [
    `-X ${pkg}.gitVersion=${KUBE_VERSION}`,
    `-X ${pkg}.gitMajor=${major}`,
    `-X ${pkg}.gitMinor=${minor}`,
    `-X ${pkg}.gitTreeState=clean`,
  ]);
  const kubeFlags = [...buildFlags, `-ldflags=${versionVars.join(' ')}`];

  const kubeStamp = digest(moduleDigest(kubeModuleDir), ...kubeFlags);
  if (!isCached(kubeDir, kubeStamp)) progress(`building kube-apiserver, kube-controller-manager and kubectl ${KUBE_VERSION} (first run only, several minutes)`);
  const kube = await cached(kubeDir, kubeStamp, () =>
    goBuild(
      'go-build-kube',
      ['build', ...kubeFlags, '-o', `${kubeBin}/`, 'k8s.io/kubernetes/cmd/kube-apiserver', 'k8s.io/kubernetes/cmd/kube-controller-manager', 'k8s.io/kubernetes/cmd/kubectl'],
      kubeModuleDir,
      {},
      logDir,
    ),
  );
  if (!isCached(ocmDir, moduleDigest(ocmModuleDir))) progress(`building OCM registration ${OCM_VERSION} (first run only, a few minutes)`);
  const ocm = await cached(ocmDir, moduleDigest(ocmModuleDir), () =>
    goBuild('go-build-ocm', ['build', ...buildFlags, '-o', `${ocmBin}/`, 'open-cluster-management.io/ocm/cmd/registration'], ocmModuleDir, {}, logDir),
  );
  const ocmServerDir = join(cacheRoot(), `ocm-server-${OCM_VERSION}-${moduleDigest(ocmServerModuleDir)}`);
  if (!isCached(ocmServerDir, moduleDigest(ocmServerModuleDir))) progress(`building OCM server ${OCM_VERSION} (first run only, a few minutes)`);
  const ocmServer = await cached(ocmServerDir, moduleDigest(ocmServerModuleDir), () =>
    goBuild('go-build-ocm-server', ['build', ...buildFlags, '-o', `${join(ocmServerDir, 'bin')}/`, 'open-cluster-management.io/ocm/cmd/server'], ocmServerModuleDir, {}, logDir),
  );
  return {
    kubeApiserver: join(kubeBin, 'kube-apiserver'),
    kubeControllerManager: join(kubeBin, 'kube-controller-manager'),
    kubectl: join(kubeBin, 'kubectl'),
    ocmRegistration: join(ocmBin, 'registration'),
    ocmServer: join(ocmServerDir, 'bin', 'server'),
    buildSeconds: { kube, ocm, ocmServer },
  };
}
