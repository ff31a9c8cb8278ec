// A long-running child of the compatibility suite (etcd, kube-apiserver, an agent, a hub): its
// output goes to a log file in the run's folder so a failure can be read afterwards, and stopping
// it always waits for the exit so no process outlives the suite.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { dirname, join } from 'node:path';

export interface Child {
  readonly name: string;
  readonly logPath: string;
  readonly process: ChildProcess;
  /** True once the process has exited (for any reason). */
  exited(): boolean;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** SIGKILL at once (a crash), resolves when the process is gone. */
  kill(): Promise<void>;
  /** The last 64 KiB of output (stdout and stderr interleaved). */
  output(): string;
  /** Resolves with the first match of `re` in the output (past or future); rejects on exit or timeout. */
  waitForOutput(re: RegExp, timeoutMs: number): Promise<RegExpMatchArray>;
}

const KEEP = 64 * 1024;

export interface StartChildOptions {
  name: string;
  command: string;
  args: string[];
  logPath: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

const live = new Set<Child>();

export function startChild(opts: StartChildOptions): Child {
  const log = createWriteStream(opts.logPath, { flags: 'a', mode: 0o600 });
  log.write(`# ${new Date().toISOString()} ${opts.command} ${opts.args.join(' ')}\n`);
  // Temporary files go beside the log, into the run's folder: OCM's binaries write a self-signed
  // serving certificate and its key to a new temporary folder at every start and never remove it.
  const tmp = join(dirname(opts.logPath), 'tmp');
  mkdirSync(tmp, { recursive: true, mode: 0o700 });
  const env = { ...(opts.env ?? process.env), TMPDIR: tmp };
  const proc = spawn(opts.command, opts.args, { env, cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  proc.stdout.pipe(log, { end: false });
  proc.stderr.pipe(log, { end: false });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer): void => {
    text = (text + d.toString('utf8')).slice(-KEEP);
    for (const l of [...listeners]) l();
  };
  proc.stdout.on('data', onData);
  proc.stderr.on('data', onData);
  let done = false;
  // 'close' comes after the process exited and its output streams ended, so nothing is written to
  // the log after it is closed ('exit' can come before the last output).
  const exit = new Promise<void>((resolve) => {
    const finish = (line: string): void => {
      if (done) return;
      done = true;
      log.end(line);
      resolve();
      for (const l of [...listeners]) l();
    };
    proc.once('close', (code, signal) => finish(`# exited code=${String(code)} signal=${String(signal)}\n`));
    proc.once('error', (err) => finish(`# failed to start: ${err.message}\n`));
  });
  const signal = async (sig: NodeJS.Signals, graceMs: number): Promise<void> => {
    if (done) return;
    proc.kill(sig);
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await exit;
    clearTimeout(timer);
  };
  const child: Child = {
    name: opts.name,
    logPath: opts.logPath,
    process: proc,
    exited: () => done,
    stop: async (graceMs = 10_000) => {
      await signal('SIGTERM', graceMs);
      live.delete(child);
    },
    kill: async () => {
      await signal('SIGKILL', 0);
      live.delete(child);
    },
    output: () => text,
    waitForOutput: (re, timeoutMs) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const m = re.exec(text);
          if (m) finish(() => resolve(m));
          else if (done) finish(() => reject(new Error(`${opts.name} exited before printing ${String(re)}; see ${opts.logPath}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`${opts.name} printed no ${String(re)} within ${timeoutMs} ms; see ${opts.logPath}`))), timeoutMs);
        const finish = (f: () => void): void => {
          clearTimeout(timer);
          listeners.delete(check);
          f();
        };
        listeners.add(check);
        check();
      }),
  };
  live.add(child);
  return child;
}

/** Stops every child still running: the suite's last step, also on failure. */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...live].map((c) => c.stop(5000)));
}

/** Resolves with the exit code of a child that must finish by itself (a build, a CLI call). */
export async function exitCode(child: Child): Promise<number | null> {
  if (child.exited()) return child.process.exitCode;
  const [code] = (await once(child.process, 'exit')) as [number | null];
  return code;
}
