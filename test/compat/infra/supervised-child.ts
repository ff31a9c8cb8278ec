// A child that is started again when it exits by itself, as a kubelet restarts a container: OCM's
// agent exits on purpose to re-bootstrap, and ours restarts in process but may exit on a broken
// file. Stopping or killing it through here ends the supervision first.
import { startChild, type Child, type StartChildOptions } from './child-process.js';

export interface SupervisedChild {
  /** How many times the child was started again after exiting by itself. */
  restarts(): number;
  /** Starts it (again), unless it is running. */
  start(): void;
  /** SIGKILL, not restarted. */
  kill(): Promise<void>;
  /** SIGTERM (then SIGKILL), not restarted. */
  stop(): Promise<void>;
}

/** A restart waits this long, so that a child failing at start does not spin. */
const RESTART_DELAY_MS = 1000;

export function superviseChild(opts: StartChildOptions): SupervisedChild {
  let child: Child | undefined;
  let wanted = false;
  let restarts = 0;
  const launch = (): void => {
    const c = startChild(opts);
    child = c;
    c.process.once('exit', () => {
      if (!wanted || child !== c) return;
      restarts++;
      setTimeout(() => {
        if (wanted && child === c) launch();
      }, RESTART_DELAY_MS);
    });
  };
  return {
    restarts: () => restarts,
    start() {
      wanted = true;
      if (!child || child.exited()) launch();
    },
    async kill() {
      wanted = false;
      await child?.kill();
    },
    async stop() {
      wanted = false;
      await child?.stop();
    },
  };
}
