// Contract between the registry (above) and the revision-log store (below).
//
// Keys are `/<group or "core">/<resource>/<namespace or "">/<name>`; a prefix such as
// `/core/secrets/` or `/core/secrets/ns1/` addresses a collection. `resourceVersion` is the global
// revision of the row that wrote the object; the store stamps `metadata.resourceVersion` itself.
// All calls are synchronous (better-sqlite3) except `whenDurable`/`flush`. A write returns once its
// transaction has committed (it then survives kill -9). Power-loss durability depends on the
// store's mode: with per-commit durability the commit was already fsynced; with group commit the
// fsync comes later, shared by many writes, so whoever acknowledges a write to a client must first
// await `whenDurable(revision)`. Watch events are handed to the fan-out only once durable, in
// revision order, so a watcher never sees a write that a crash could still take back.

import type { KubeObject } from '../../api/meta.js';

export interface StoredObject {
  key: string;
  /** Revision that wrote this version of the object. */
  revision: number;
  /** The object, with metadata.resourceVersion === String(revision). */
  object: KubeObject;
  /** Size of the stored JSON, when the store knows it without encoding (list responses are sized by it). */
  bytes?: number;
}

/** How many objects a collection holds and how large their stored JSON is. */
interface ListSize {
  items: number;
  bytes: number;
}

export type StoreEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

export interface StoreEvent {
  type: StoreEventType;
  key: string;
  revision: number;
  /** New object; for DELETED the last state, stamped with the delete's revision. */
  object: KubeObject;
  /** Previous version (MODIFIED, DELETED); needed for selector transitions in watches. */
  prevObject?: KubeObject;
}

/**
 * What a request's selectors pin down, so the store can narrow a read or a watch fan-out to the
 * objects they can match. Advisory only: the request's filter still decides every item, so a store
 * may ignore a hint, but one that uses it must never drop an object the filter would keep.
 */
export interface SelectorHints {
  /** Every match carries the label `key` with one of `values` (an `=`, `==` or `in` requirement). */
  label?: { key: string; values: readonly string[] };
}

export interface ListOptions {
  /** Only keys strictly greater than this one (pagination). */
  startAfterKey?: string;
  /** At most this many items; the result says whether more exist. */
  limit?: number;
  /** Read the state as of this revision (consistent pagination); throws StoreCompactedError if compacted. */
  atRevision?: number;
  /** Optional in-store filter so limit counts only matching items. */
  filter?: (obj: KubeObject) => boolean;
  /** What the filter pins down (see SelectorHints); only meaningful together with `filter`. */
  hints?: SelectorHints;
}

export interface ListResult {
  items: StoredObject[];
  /** Revision the list reflects (current revision unless atRevision was given). */
  revision: number;
  /** Key of the last item returned when more items remain, for the continue token. */
  continueAfterKey?: string;
  /** Number of matching items not returned (when known). */
  remaining?: number;
}

export interface WatchSubscription {
  /** Stop delivery; idempotent. */
  close(): void;
  /**
   * A revision up to which this subscriber has been handed every event it can want: its last
   * delivered one, or the store's last published revision when nothing is waiting for it. A
   * bookmark may carry it, though the events in between (other keys, other labels) never reached
   * this subscriber.
   */
  progress(): number;
}

export interface WatchOptions {
  /** Deliver events with revision > fromRevision (0 = only new events). */
  fromRevision: number;
  /**
   * Called asynchronously, in revision order, one event at a time. Returning a promise (e.g. until a
   * socket drains) defers this subscriber's next event until it settles; live events then wait in
   * a bounded buffer, and a subscriber that overflows it while blocked (or still replaying) is
   * dropped with onClose('slow'); one that is not blocked is keeping up and is never dropped.
   */
  onEvent: (ev: StoreEvent) => void | PromiseLike<void>;
  /** Called once if the subscriber is dropped (it fell too far behind, or the store closed). */
  onClose?: (reason: 'slow' | 'closed') => void;
  /**
   * What the subscriber's filter pins down: an event whose object and previous object both fail
   * the hint can be left out (the watch would neither add, modify nor delete anything for it).
   */
  hints?: SelectorHints;
}

export class StoreConflictError extends Error {
  constructor(readonly key: string, readonly current: StoredObject | undefined) {
    super(`conflict on ${key}`);
    this.name = 'StoreConflictError';
  }
}
export class StoreNotFoundError extends Error {
  constructor(readonly key: string) {
    super(`not found: ${key}`);
    this.name = 'StoreNotFoundError';
  }
}
export class StoreExistsError extends Error {
  constructor(readonly key: string, readonly current: StoredObject) {
    super(`already exists: ${key}`);
    this.name = 'StoreExistsError';
  }
}
/** The requested revision is older than the compacted revision (HTTP 410 Gone upstream). */
export class StoreCompactedError extends Error {
  constructor(readonly requested: number, readonly compacted: number) {
    super(`revision ${requested} has been compacted (oldest available ${compacted})`);
    this.name = 'StoreCompactedError';
  }
}

export interface Store {
  currentRevision(): number;
  /** Oldest revision still readable/watchable; requests below it get StoreCompactedError. */
  compactedRevision(): number;
  get(key: string): StoredObject | undefined;
  list(prefix: string, opts?: ListOptions): ListResult;
  /**
   * Count and stored size of the current objects under a prefix (keys after startAfterKey), without
   * reading the objects: lets the server refuse an oversized list before building it. With `hints`
   * the store may count only the objects that can match them (never fewer than the matches).
   */
  listSize?(prefix: string, opts?: { startAfterKey?: string; hints?: SelectorHints }): ListSize;
  /** Throws StoreExistsError when the key exists. */
  create(key: string, obj: KubeObject): StoredObject;
  /**
   * Replace the object. When expectedRevision is given and differs from the stored one, throws
   * StoreConflictError carrying the current object. Throws StoreNotFoundError when missing.
   */
  update(key: string, obj: KubeObject, expectedRevision?: number): StoredObject;
  /** Remove the key; same precondition semantics as update. Returns the deleted object. */
  delete(key: string, expectedRevision?: number): StoredObject;
  /** Subscribe to events under a key prefix. Throws StoreCompactedError if fromRevision is compacted. */
  watch(prefix: string, opts: WatchOptions): WatchSubscription;
  /** Drop superseded revisions older than the retention window, all at once; returns rows removed. */
  compact(): number;
  /**
   * The same, one bounded transaction per turn of the event loop (the periodic compaction: a long
   * history is deleted without holding the loop). A call while a run is in progress shares it.
   */
  compactInSteps(): Promise<number>;
  /** Arbitrary small metadata (CA material, schema version), stored durably. */
  getMeta(name: string): string | undefined;
  /** Durable before it returns, in every mode. */
  setMeta(name: string, value: string): void;
  /**
   * Resolves once every write up to `revision` survives power loss (at once if it already does).
   * Rejects if the store could not sync (it then refuses further writes).
   */
  whenDurable(revision: number): Promise<void>;
  /** whenDurable(currentRevision()): every write committed before the call is durable. */
  flush(): Promise<void>;
  /** Highest revision known durable (and visible to watchers). */
  durableRevision(): number;
  /** Syncs what is pending, then closes; waiters resolve. */
  close(): void;
}
