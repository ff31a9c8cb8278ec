// Writes that this client already knows will conflict are refused here, with the 409 the server
// would answer, instead of being sent.
//
// Several controllers of one process (the hub's) react to the same event with a write guarded by the
// resourceVersion their cache holds. All but the first are bound to fail with 409 Conflict, and each
// failure costs the server a request and the caller a round trip. A resourceVersion that a write of
// this client has replaced (the write succeeded with it as precondition and answered another one — a
// write that changes nothing keeps its version — or the server refused it as stale) can never be
// current again: resource versions of one object do not repeat. So writes to one
// object are sent one after another, and one guarded by a version known to be replaced fails at once,
// exactly as the server would make it fail; the controller then retries from its refreshed cache as
// it does after any conflict. Versions are only ever compared for equality: they stay opaque.
//
// The same knowledge tells which copy is newest: a cached object whose version one of these writes
// replaced is older than the answer to the last of them (writes to one object go one at a time), so
// a controller that asks gets that answer instead and writes against it, rather than failing once
// more and waiting for its cache to catch up.

import type { Status } from '../api/meta.js';
import { ApiStatusError } from './errors.js';

/** Objects remembered (the least recently written are forgotten first). */
const MAX_OBJECTS = 4096;
/** Replaced versions remembered per object. */
const MAX_REPLACED = 8;
/** Answers remembered (the least recently written are forgotten first): a cache catches up in moments. */
const MAX_ANSWERS = 256;

interface ObjectWrites {
  /** Settles when the last queued write to the object is done. */
  tail: Promise<void>;
  inFlight: number;
  replaced: string[];
}

export interface ObjectRef {
  /** The object's path without subresource: its writes share one queue. */
  path: string;
  name: string;
  group: string;
  /** Plural resource name, as in the server's message. */
  resource: string;
}

export interface StaleWriteGuard {
  /** Runs `write` after the writes in flight to the same object, or throws the 409 it would get. */
  run<T>(ref: ObjectRef, precondition: string | undefined, write: () => Promise<T>): Promise<T>;
  /**
   * `obj` (a cached copy of the object at `path`), or a copy of the answer to the last write of it
   * when a write replaced `obj`'s version. Not to be mutated, like a cache's objects.
   */
  newest<T>(path: string, obj: T): T;
}

/** The Status kube-apiserver answers to a write whose resourceVersion is not the object's. */
export function conflictStatus(ref: Pick<ObjectRef, 'name' | 'group' | 'resource'>): Status {
  const qualified = ref.group ? `${ref.resource}.${ref.group}` : ref.resource;
  return {
    apiVersion: 'v1',
    kind: 'Status',
    metadata: {},
    status: 'Failure',
    message: `Operation cannot be fulfilled on ${qualified} "${ref.name}": the object has been modified; please apply your changes to the latest version and try again`,
    reason: 'Conflict',
    details: { name: ref.name, ...(ref.group ? { group: ref.group } : {}), kind: ref.resource },
    code: 409,
  };
}

/** `metadata.resourceVersion` of an object (a write's answer, a merge or apply patch); undefined when absent. */
export function versionOf(answer: unknown): string | undefined {
  const metadata = typeof answer === 'object' && answer !== null ? (answer as { metadata?: unknown }).metadata : undefined;
  const rv = typeof metadata === 'object' && metadata !== null ? (metadata as { resourceVersion?: unknown }).resourceVersion : undefined;
  return typeof rv === 'string' && rv !== '' ? rv : undefined;
}

function isConflict(err: unknown): boolean {
  return err instanceof ApiStatusError && err.code === 409 && err.reason === 'Conflict';
}

export function createStaleWriteGuard(): StaleWriteGuard {
  const objects = new Map<string, ObjectWrites>();
  /** The last answer per object, copied (the writer keeps the original and may change it). */
  const answers = new Map<string, { version: string; object: unknown }>();
  /** Answers are kept once someone asks for them: most clients (an agent's) never do. */
  let keeping = false;

  const entryOf = (path: string): ObjectWrites => {
    let e = objects.get(path);
    if (e) objects.delete(path); // re-inserted below: most recently written last
    e ??= { tail: Promise.resolve(), inFlight: 0, replaced: [] };
    objects.set(path, e);
    if (objects.size > MAX_OBJECTS) {
      for (const [k, v] of objects) {
        if (objects.size <= MAX_OBJECTS) break;
        if (v.inFlight === 0) objects.delete(k);
      }
    }
    return e;
  };

  const remember = (e: ObjectWrites, version: string): void => {
    if (e.replaced.includes(version)) return;
    e.replaced.push(version);
    if (e.replaced.length > MAX_REPLACED) e.replaced.shift();
  };

  const keepAnswer = (e: ObjectWrites, path: string, version: string, answer: unknown): void => {
    const last = answers.get(path);
    // Answers to one object come one write after another: the previous one is older.
    if (last !== undefined && last.version !== version) remember(e, last.version);
    answers.delete(path);
    answers.set(path, { version, object: structuredClone(answer) });
    if (answers.size > MAX_ANSWERS) answers.delete(answers.keys().next().value as string);
  };

  return {
    newest(path, obj) {
      keeping = true;
      const version = versionOf(obj);
      const last = answers.get(path);
      const e = objects.get(path);
      if (version === undefined || last === undefined || e === undefined || last.version === version) return obj;
      return e.replaced.includes(version) && !e.replaced.includes(last.version) ? (last.object as typeof obj) : obj;
    },
    async run(ref, precondition, write) {
      const e = entryOf(ref.path);
      const previous = e.tail;
      let release!: () => void;
      e.tail = new Promise<void>((resolve) => (release = resolve));
      e.inFlight++;
      try {
        await previous;
        if (precondition !== undefined && e.replaced.includes(precondition)) throw new ApiStatusError(conflictStatus(ref));
        try {
          const result = await write();
          const version = versionOf(result);
          if (precondition !== undefined && version !== precondition) remember(e, precondition);
          if (keeping && version !== undefined) keepAnswer(e, ref.path, version, result);
          return result;
        } catch (err) {
          if (precondition !== undefined && isConflict(err)) remember(e, precondition);
          throw err;
        }
      } finally {
        e.inFlight--;
        release();
      }
    },
  };
}
