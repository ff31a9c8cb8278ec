// Contract of the client-side runtime that the agent and hub controllers are written against.
// Implementations live beside this file (rest-client.ts, informer.ts, work-queue.ts, controller.ts,
// event-recorder.ts, kubeconfig.ts); controllers import only these types and the factory functions
// re-exported from ./index.ts.

import type { KubeList, KubeObject, WatchEvent } from '../api/meta.js';
import type { LabelSelector } from '../api/label-selectors.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';

/** A served kind, as the client addresses it. */
export interface ResourceType {
  group: string;
  version: string;
  resource: string;
  kind: string;
  namespaced: boolean;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export interface ListCallOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
}

export interface WatchCallOptions extends CallOptions {
  resourceVersion?: string;
  labelSelector?: string;
  fieldSelector?: string;
  timeoutSeconds?: number;
  allowWatchBookmarks?: boolean;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface PatchCallOptions extends CallOptions {
  /** '' (default) or 'status', 'approval', ... */
  subresource?: string;
  fieldManager?: string;
  force?: boolean;
}

export interface WriteCallOptions extends CallOptions {
  fieldManager?: string;
}

/** CRUD + watch on one collection (a namespace's, or cluster-scoped). */
export interface ResourceClient<T extends KubeObject = KubeObject> {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  get(name: string, opts?: CallOptions): Promise<T>;
  list(opts?: ListCallOptions): Promise<KubeList<T>>;
  create(obj: T, opts?: WriteCallOptions): Promise<T>;
  update(obj: T, opts?: WriteCallOptions): Promise<T>;
  updateStatus(obj: T, opts?: WriteCallOptions): Promise<T>;
  /** Subresource updates such as CSR `/approval`. */
  updateSubresource(obj: T, subresource: string, opts?: WriteCallOptions): Promise<T>;
  patch(name: string, type: PatchType, patch: unknown, opts?: PatchCallOptions): Promise<T>;
  delete(name: string, opts?: CallOptions & { propagationPolicy?: 'Background' | 'Foreground' | 'Orphan'; preconditions?: { uid?: string; resourceVersion?: string } }): Promise<void>;
  /** One watch stream, consumed in order; ends when the server closes it or the signal aborts. */
  watch(opts?: WatchCallOptions): AsyncIterable<WatchEvent<T>>;
}

/** An HTTPS client for one API server and identity. */
export interface KubeClient {
  /** Server URL (https://host:port). */
  readonly server: string;
  /** Collection client; `namespace` is required for namespaced kinds except for all-namespace list/watch. */
  resource<T extends KubeObject = KubeObject>(type: ResourceType, namespace?: string): ResourceClient<T>;
  /** Raw GET/POST for discovery, /version, /livez, SubjectAccessReviews... Throws ApiStatusError on non-2xx. */
  request<R = unknown>(method: string, path: string, body?: unknown, opts?: CallOptions & { contentType?: string }): Promise<R>;
  /** Raw GET returning status code and body text, never throwing on HTTP status (health probes). */
  probe(path: string, opts?: CallOptions & { timeoutMs?: number }): Promise<{ statusCode: number; body: string }>;
  /**
   * `obj` (a cached copy), or this client's last written copy of the same object when one of its
   * writes replaced `obj`'s version: newer than a cache can be yet. Clients that do not track their
   * writes leave it out.
   */
  newest?<T extends KubeObject>(type: ResourceType, obj: T): T;
  /**
   * Opens the connection the next request will use, so that its handshake overlaps other work; a
   * connection that cannot be made is left for that request to meet. Clients without connections
   * of their own leave it out.
   */
  preconnect?(): void;
  /** Release kept-alive connections. */
  close(): void;
}

export type InformerState = 'listing' | 'watching' | 'backingOff' | 'stopped';

export interface InformerHandlers<T extends KubeObject> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

/** Read-only view of an informer's cache. Returned objects must not be mutated (deep-copy first). */
export interface Lister<T extends KubeObject> {
  get(name: string, namespace?: string): T | undefined;
  list(opts?: { namespace?: string; labelSelector?: string }): T[];
  /** How many objects the cache holds (without building their list). */
  size(): number;
  /** How many cached objects are in the namespace (when given) and match the selector (when given), without building their list. */
  count(opts?: { namespace?: string; selector?: LabelSelector }): number;
}

export interface Informer<T extends KubeObject> {
  readonly lister: Lister<T>;
  /** Handlers must only enqueue keys: they run synchronously and never await. */
  addHandlers(h: InformerHandlers<T>): void;
  start(signal: AbortSignal): void;
  hasSynced(): boolean;
  /** Resolves once the first list has been loaded into the cache. */
  waitForSync(signal?: AbortSignal): Promise<void>;
  state(): InformerState;
}

export interface InformerOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Re-deliver every cached object as an update this often (0 = never). */
  resyncMs?: number;
  /**
   * Cache objects without metadata.managedFields, as client-go's TransformStripManagedFields does: no
   * controller reads them, and they are often the largest part of a cached object. Writing a cached
   * object back (which then has none) leaves the stored ones as they are.
   */
  dropManagedFields?: boolean;
  clock?: Clock;
  log?: Logger;
}

/** Result of one reconcile. */
export interface ReconcileResult {
  requeueAfterMs?: number;
}

export interface ControllerOptions {
  name: string;
  reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult | void>;
  log: Logger;
  clock?: Clock;
  /** Concurrent workers; one key never runs twice at once regardless. Default 1. */
  workers?: number;
  /** Re-queue every key returned by resyncKeys() this often (0 = never). */
  resyncMs?: number;
  resyncKeys?(): string[];
  /** Per-key backoff: base and cap in ms (defaults 5 ms → 1000 s, like client-go). */
  backoffBaseMs?: number;
  backoffMaxMs?: number;
}

export interface Controller {
  readonly name: string;
  enqueue(key: string): void;
  enqueueAfter(key: string, delayMs: number): void;
  /** Runs workers until the signal aborts; resolves after in-flight reconciles finish. */
  run(signal: AbortSignal): Promise<void>;
}

export type EventType = 'Normal' | 'Warning';

export interface EventRecorder {
  /** Creates an Event about the object in the given namespace (defaults to the object's). Never throws. */
  event(involved: KubeObject & { apiVersion?: string; kind?: string }, type: EventType, reason: string, message: string, namespace?: string): void;
}
