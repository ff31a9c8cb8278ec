// The shared spoke API server in its own child process (`ocm-ts apiserver`), so that serving the
// agents' spoke requests and health probes does not compete with the agents for this process's
// event loop.

import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { CliEntry } from './hub-process.js';

export interface SpokeProcess {
  url: string;
  adminKubeconfig: string;
  pid(): number | undefined;
  stop(): Promise<void>;
}

export function startSpokeProcess(cli: CliEntry, dataDir: string, readyTimeoutMs = 120_000): Promise<SpokeProcess> {
  const child: ChildProcess = spawn(process.execPath, [...cli.execArgv, cli.script, 'apiserver', '--data-dir', dataDir, '--listen', '127.0.0.1:0', '--log-level', 'error'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err = (err + d).slice(-4000)));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the spoke API server was not ready after ${readyTimeoutMs / 1000} s: ${err}`));
    }, readyTimeoutMs);
    const onData = (d: string): void => {
      out += d;
      const m = /^ocm-ts apiserver listening on (\S+)/m.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stdout!.resume();
      resolve({ url: m[1]!, adminKubeconfig: join(dataDir, 'admin.kubeconfig'), pid: () => (child.exitCode === null && child.signalCode === null ? child.pid : undefined), stop });
    };
    child.stdout!.setEncoding('utf8').on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the spoke API server exited before it was ready (code ${child.exitCode ?? child.signalCode}): ${err}`));
    });
  });
}
