// The agent's local copy of one kind of hub object when it talks to the hub over CloudEvents: the
// objects the hub sent (its answers to resync requests and its spec events), and the list/watch
// view that the agent's informers read. The hub sends no watch stream of its own, so this store
// numbers its changes itself: a list carries the store's revision, a watch replays the changes made
// after that revision from a bounded history, and a revision older than the history is answered
// with 410 so that the informer lists again (from this store: no hub round trip).

import type { KubeObject } from '../../../api/meta.js';
import { ApiStatusError, statusFromCode } from '../../../client/errors.js';

export type StoreChange<T extends KubeObject> = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: T; previous?: T; revision: number };

export interface ObjectStore<T extends KubeObject> {
  get(namespace: string | undefined, name: string): T | undefined;
  /** Every object, and the revision the snapshot is at. */
  list(): { items: T[]; revision: number };
  /**
   * Records an object the hub sent, as OCM's agent-side stores do: a deleted object without
   * finalizers leaves the store, one with finalizers is kept with its deletion marks.
   */
  apply(obj: T): void;
  /** Removes an object (the hub answered that it no longer exists). */
  remove(namespace: string | undefined, name: string): void;
  /** The changes after `revision`, then every later change, until the signal aborts; 410 when the history no longer reaches back. */
  changesSince(revision: number, signal: AbortSignal): AsyncIterable<StoreChange<T>>;
}

/** The list and watch token of a store revision; a hub resourceVersion never looks like this. */
export function revisionToken(revision: number): string {
  return `ce-${revision}`;
}

/** The revision a token names, undefined for anything else (a hub resourceVersion, ''). */
export function parseRevisionToken(token: string | undefined): number | undefined {
  const m = /^ce-(\d+)$/.exec(token ?? '');
  return m ? Number(m[1]) : undefined;
}

export function goneError(message: string): ApiStatusError {
  return new ApiStatusError(statusFromCode(410, message));
}

function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function createObjectStore<T extends KubeObject>(o: { historyLimit: number }): ObjectStore<T> {
  const objects = new Map<string, T>();
  const history: Array<StoreChange<T>> = [];
  const waiters = new Set<() => void>();
  let revision = 0;

  const record = (change: Omit<StoreChange<T>, 'revision'>): void => {
    revision++;
    history.push({ ...change, revision });
    if (history.length > o.historyLimit) history.shift();
    for (const w of [...waiters]) w();
  };

  return {
    get: (namespace, name) => objects.get(keyOf(namespace, name)),
    list: () => ({ items: [...objects.values()], revision }),
    apply(obj) {
      const name = obj.metadata.name ?? '';
      const key = keyOf(obj.metadata.namespace, name);
      const previous = objects.get(key);
      if (obj.metadata.deletionTimestamp && (obj.metadata.finalizers ?? []).length === 0) {
        if (previous === undefined) return;
        objects.delete(key);
        record({ type: 'DELETED', object: obj, previous });
        return;
      }
      objects.set(key, obj);
      record(previous === undefined ? { type: 'ADDED', object: obj } : { type: 'MODIFIED', object: obj, previous });
    },
    remove(namespace, name) {
      const key = keyOf(namespace, name);
      const previous = objects.get(key);
      if (previous === undefined) return;
      objects.delete(key);
      record({ type: 'DELETED', object: previous, previous });
    },
    async *changesSince(from, signal) {
      let next = from;
      for (;;) {
        if (signal.aborted) return;
        const oldest = history[0]?.revision ?? revision + 1;
        if (next > revision) throw goneError(`unknown resource version: ${from}`);
        if (next < revision && next + 1 < oldest) throw goneError(`too old resource version: ${from} (${oldest - 1})`);
        const pending = history.filter((c) => c.revision > next);
        for (const c of pending) {
          yield c;
          next = c.revision;
        }
        if (pending.length > 0) continue;
        if (signal.aborted) return;
        await new Promise<void>((resolve) => {
          const wake = (): void => {
            waiters.delete(wake);
            signal.removeEventListener('abort', wake);
            resolve();
          };
          waiters.add(wake);
          signal.addEventListener('abort', wake, { once: true });
        });
      }
    },
  };
}
