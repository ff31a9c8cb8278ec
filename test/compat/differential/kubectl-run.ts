// Runs one kubectl command against one server and normalises its output the way HTTP bodies are:
// JSON output is parsed and normalised, table and text output loses ages, times, uids, URLs and
// resourceVersions.
import { spawn } from 'node:child_process';
import { normaliseBody, normaliseText } from './normalise.js';
import type { KubectlAnswer } from './types.js';

export interface KubectlRun {
  kubectl: string;
  kubeconfigPath: string;
  args: string[];
  /** Stop after this many stdout lines (a watch), or at the timeout. */
  lines?: number;
  timeoutMs: number;
}

export function runKubectl(run: KubectlRun): Promise<KubectlAnswer> {
  return new Promise((resolve) => {
    const child = spawn(run.kubectl, ['--kubeconfig', run.kubeconfigPath, ...run.args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, KUBECTL_EXTERNAL_DIFF: '' } });
    let stdout = '';
    let stderr = '';
    let stopped = false;
    const stop = (): void => {
      if (!stopped) child.kill('SIGKILL');
      stopped = true;
    };
    const timer = setTimeout(stop, run.timeoutMs);
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString('utf8');
      if (run.lines !== undefined && stdout.split('\n').length > run.lines) stop();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('close', (code) => {
      clearTimeout(timer);
      if (run.lines !== undefined) stdout = stdout.split('\n').slice(0, run.lines).join('\n');
      // A watch we stopped has no exit code of its own to compare.
      resolve({ exit: stopped && run.lines !== undefined ? 0 : code, stdout, stderr });
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ exit: -1, stdout, stderr: err.message });
    });
  });
}

/** Text that differs between any two servers: ages, timestamps, addresses, generated values. */
function normaliseKubectlText(s: string, serverUrl: string): string {
  return normaliseText(s)
    .split(serverUrl).join('<server>')
    .replace(/https:\/\/127\.0\.0\.1:\d+/g, '<server>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/\b(\d+(d|h|m|s|ms))+\b/g, '<age>')
    .replace(/(resourceVersion: )"?\d+"?/g, '$1<rv>')
    .replace(/[ \t]+$/gm, '');
}

export function normaliseKubectl(out: KubectlAnswer, serverUrl: string): KubectlAnswer {
  let stdout = out.stdout;
  const trimmed = stdout.trim();
  if (trimmed.startsWith('{')) {
    try {
      stdout = JSON.stringify(normaliseBody(JSON.parse(trimmed)), null, 2);
    } catch {
      // not one JSON document: compared as text
    }
  }
  return { exit: out.exit, stdout: normaliseKubectlText(stdout, serverUrl), stderr: normaliseKubectlText(out.stderr, serverUrl) };
}
