// What the suite needs on the machine, checked before anything starts so a missing tool is one clear
// line (and a failed run), never a skipped suite.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Toolchain {
  go: string;
  goVersion: string;
  etcd: string;
  etcdVersion: string;
}

export class MissingToolError extends Error {}

async function which(cmd: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('sh', ['-c', `command -v ${cmd}`]);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

/** `go1.26.8` → [1, 26, 8]. */
function parseGoVersion(text: string): number[] | undefined {
  const m = /go(\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : undefined;
}

export async function checkToolchain(): Promise<Toolchain> {
  const problems: string[] = [];
  const go = await which('go');
  let goVersion = '';
  if (!go) problems.push('go is not on PATH (the suite builds kube-apiserver and OCM with Go 1.26 or newer)');
  else {
    goVersion = (await run(go, ['env', 'GOVERSION'])).stdout.trim();
    const v = parseGoVersion(goVersion);
    if (!v || v[0]! < 1 || (v[0] === 1 && v[1]! < 26)) problems.push(`go is ${goVersion}; the suite needs Go 1.26 or newer`);
  }
  const etcd = await which('etcd');
  let etcdVersion = '';
  if (!etcd) problems.push("etcd is not on PATH: install Debian's etcd-server package (apt-get install -y etcd-server)");
  else etcdVersion = /etcd Version: (\S+)/.exec((await run(etcd, ['--version'])).stdout)?.[1] ?? 'unknown';
  if (problems.length > 0) throw new MissingToolError(problems.join('\n'));
  return { go: go!, goVersion, etcd: etcd!, etcdVersion };
}
