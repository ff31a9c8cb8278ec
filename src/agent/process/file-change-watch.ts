// `--terminate-on-files`: the agent stops when one of these files changes, as OCM's agent (through
// library-go's file observer) exits so that the kubelet restarts it with the new content, e.g. the
// managed cluster kubeconfig of a Hosted-mode agent. Content is compared, polled on the clock; a
// file unreadable at start counts as changed once it can be read (and the other way round).

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeoutUntilAborted, type Clock } from '../../util/clock.js';

/** Digest of the file's content, undefined when it cannot be read. */
function digest(path: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(path)).digest('hex');
  } catch {
    return undefined;
  }
}

export interface FileChangeWatchOptions {
  files: readonly string[];
  pollMs: number;
  clock: Clock;
  /** Called once, with the first file seen to change; the watch then ends. */
  onChange(file: string): void;
  /** Called for each file unreadable at start (library-go warns and watches it anyway). */
  onUnreadable?(file: string): void;
}

/** Starts watching until `signal` aborts or a change was reported. */
export function watchFilesForChange(o: FileChangeWatchOptions, signal: AbortSignal): void {
  if (o.files.length === 0) return;
  const initial = new Map(o.files.map((f) => [f, digest(f)] as const));
  for (const [f, d] of initial) if (d === undefined) o.onUnreadable?.(f);
  const tick = (): void => {
    for (const [f, d] of initial) {
      if (digest(f) !== d) {
        o.onChange(f);
        return;
      }
    }
    setTimeoutUntilAborted(o.clock, o.pollMs, signal, tick);
  };
  setTimeoutUntilAborted(o.clock, o.pollMs, signal, tick);
}
