// createKubeClient: the KubeClient/ResourceClient implementation over HTTP/2 or HTTPS (keep-alive,
// JSON, an AbortSignal on every call). Watches are one streaming GET decoded line by line in order.

import { resolve as resolvePath } from 'node:path';
import type { KubeList, KubeObject, WatchEvent } from '../api/meta.js';
import { nullLogger, type Logger } from '../util/logger.js';
import { NetworkError } from './errors.js';
import { createTransport, readBody, statusErrorFrom, type Transport } from './http-transport.js';
import type { HttpResponse } from './http-response.js';
import type { Http2Options } from './http2-transport.js';
import { fileConfigSource, staticConfigSource, type ClientConfig, type ConfigSource } from './kubeconfig.js';
import { patchContentTypes, queryString, resourcePath, type QueryValue } from './request-path.js';
import type {
  CallOptions,
  KubeClient,
  ListCallOptions,
  PatchCallOptions,
  PatchType,
  ResourceClient,
  ResourceType,
  WatchCallOptions,
  WriteCallOptions,
} from './types.js';
import { decodeWatchStream } from './watch-decoder.js';
import { createStaleWriteGuard, versionOf, type ObjectRef } from './stale-writes.js';
import { bucketRateLimiter } from './rate-limiter.js';
import { retryAfterTransport } from './retry-after.js';
import { monotonicMs, realClock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';

export interface KubeClientOptions {
  log?: Logger;
  userAgent?: string;
  /** Timeout of each non-watch request (default 30 s; 0 = none). */
  timeoutMs?: number;
  /**
   * Client-side rate limit as client-go's QPS and Burst: a token bucket of `burst` refilled at
   * `qps` per second, one token per request (watches included). Omitted or qps <= 0 = no limit.
   */
  rateLimit?: { qps: number; burst: number };
  /** HTTP/2 health-check durations (defaults as client-go's); false = HTTP/1.1 only. */
  http2?: Http2Options | false;
}

export type KubeClientConfig = ClientConfig | { kubeconfigPath: string; context?: string };

export function createKubeClient(config: KubeClientConfig, opts: KubeClientOptions = {}): KubeClient {
  const log = opts.log ?? nullLogger();
  const transport = 'kubeconfigPath' in config ? sharedFileTransport(config, opts, log) : newTransport(staticConfigSource(config), opts);
  const limited = opts.rateLimit && opts.rateLimit.qps > 0 ? rateLimitedTransport(transport, opts.rateLimit) : transport;
  return new RestClient(retryAfterTransport(limited, log), log);
}

function newTransport(source: ConfigSource, opts: KubeClientOptions): Transport {
  return createTransport({
    source,
    userAgent: opts.userAgent ?? 'ocm-ts',
    timeoutMs: opts.timeoutMs ?? 30_000,
    ...(opts.http2 !== undefined ? { http2: opts.http2 } : {}),
  });
}

/**
 * Clients of one kubeconfig file (and the same transport options) share one transport, hence one
 * HTTP/2 connection and one file watch, as client-go shares a transport between clients of equal TLS
 * configs: an agent's management and spoke clients of one cluster, or thousands of simulated agents
 * of one spoke, hold one connection instead of one each. Each client's close() releases its share;
 * the last one closes the transport.
 */
const sharedTransports = new Map<string, { transport: Transport; clients: number }>();

function sharedFileTransport(config: { kubeconfigPath: string; context?: string }, opts: KubeClientOptions, log: Logger): Transport {
  const key = JSON.stringify([resolvePath(config.kubeconfigPath), config.context ?? null, opts.userAgent ?? null, opts.timeoutMs ?? null, opts.http2 ?? null]);
  let shared = sharedTransports.get(key);
  if (shared === undefined) {
    const source = fileConfigSource(config.kubeconfigPath, {
      ...(config.context !== undefined ? { context: config.context } : {}),
      onReload: (r) => {
        if (r.ok) log.debug('client config loaded', { kubeconfig: config.kubeconfigPath });
        else log.warn('client config reload failed; keeping the previous one', { kubeconfig: config.kubeconfigPath, err: r.err });
      },
    });
    shared = { transport: newTransport(source, opts), clients: 0 };
    sharedTransports.set(key, shared);
  }
  const entry = shared;
  entry.clients++;
  let released = false;
  return {
    get server() {
      return entry.transport.server;
    },
    send: (s) => entry.transport.send(s),
    preconnect: () => entry.transport.preconnect(),
    close: () => {
      if (released) return;
      released = true;
      if (--entry.clients > 0) return;
      if (sharedTransports.get(key) === entry) sharedTransports.delete(key);
      entry.transport.close();
    },
  };
}

/** Whether the request went over a kept-alive connection (a new one costs a TLS handshake). */
function connectionOf(res: HttpResponse): 'reused' | 'new' {
  return res.reusedConnection ? 'reused' : 'new';
}

/** Each send waits for a token of the bucket (aborting the wait with the request's signal). */
function rateLimitedTransport(inner: Transport, limit: { qps: number; burst: number }): Transport {
  const bucket = bucketRateLimiter({ qps: limit.qps, burst: Math.max(1, limit.burst), now: () => realClock.now() });
  return {
    get server() {
      return inner.server;
    },
    async send(s) {
      const delay = bucket.when('');
      if (delay > 0) await realClock.sleep(delay, s.signal);
      return inner.send(s);
    },
    preconnect: () => inner.preconnect(),
    close: () => inner.close(),
  };
}

class RestClient implements KubeClient {
  /** Writes to one object go out one at a time; those bound to conflict are refused here. */
  readonly writes = createStaleWriteGuard();

  constructor(
    private readonly transport: Transport,
    private readonly log: Logger,
  ) {}

  get server(): string {
    return this.transport.server;
  }

  resource<T extends KubeObject = KubeObject>(type: ResourceType, namespace?: string): ResourceClient<T> {
    return new RestResourceClient<T>(this, type, type.namespaced ? namespace : undefined);
  }

  newest<T extends KubeObject>(type: ResourceType, obj: T): T {
    const name = obj.metadata.name;
    if (!name) return obj;
    return this.writes.newest(resourcePath(type, { namespace: type.namespaced ? obj.metadata.namespace : undefined, name }), obj);
  }

  async request<R = unknown>(method: string, path: string, body?: unknown, opts: CallOptions & { contentType?: string } = {}): Promise<R> {
    const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
    const started = monotonicMs();
    const res = await this.transport.send({ method, path, body: text, contentType: opts.contentType, signal: opts.signal });
    const answer = await readBody(res, `${method} ${path}`);
    const code = res.statusCode;
    // One line per round trip (debug and trace levels): counting them shows where a flow waits.
    this.log.debug('http', { method, path, code, durationMs: monotonicMs() - started, connection: connectionOf(res) });
    if (code < 200 || code > 299) throw statusErrorFrom(res, answer);
    if (answer === '') return undefined as R;
    try {
      return JSON.parse(answer) as R;
    } catch (err) {
      if (!/json/i.test(String(res.headers['content-type'] ?? ''))) return answer as R;
      throw new NetworkError(`${method} ${path}: undecodable JSON response`, { cause: err });
    }
  }

  async probe(path: string, opts: CallOptions & { timeoutMs?: number } = {}): Promise<{ statusCode: number; body: string }> {
    const res = await this.transport.send({ method: 'GET', path, signal: opts.signal, timeoutMs: opts.timeoutMs });
    const body = await readBody(res, `GET ${path}`);
    return { statusCode: res.statusCode, body };
  }

  /** Opens a streaming GET; throws ApiStatusError on non-200. */
  async stream(path: string, signal: AbortSignal | undefined): Promise<HttpResponse> {
    const started = monotonicMs();
    const res = await this.transport.send({ method: 'GET', path, signal, timeoutMs: 0 });
    this.log.debug('http watch opened', { path, code: res.statusCode, durationMs: monotonicMs() - started, connection: connectionOf(res) });
    if (res.statusCode !== 200) throw statusErrorFrom(res, await readBody(res, `GET ${path}`));
    return res;
  }

  preconnect(): void {
    this.transport.preconnect();
  }

  close(): void {
    this.transport.close();
  }
}

class RestResourceClient<T extends KubeObject> implements ResourceClient<T> {
  constructor(
    private readonly client: RestClient,
    readonly type: ResourceType,
    readonly namespace: string | undefined,
  ) {}

  private path(name?: string, subresource?: string, namespace?: string): string {
    return resourcePath(this.type, { namespace: namespace ?? this.namespace, name, subresource });
  }

  private objectNamespace(obj: T): string | undefined {
    return this.type.namespaced ? (this.namespace ?? obj.metadata.namespace) : undefined;
  }

  private requireNamespace(ns: string | undefined, verb: string): void {
    if (this.type.namespaced && !ns) throw new Error(`${verb} ${this.type.resource}: a namespace is required`);
  }

  get(name: string, opts: CallOptions = {}): Promise<T> {
    this.requireNamespace(this.namespace, 'get');
    return this.client.request<T>('GET', this.path(name), undefined, opts);
  }

  list(opts: ListCallOptions = {}): Promise<KubeList<T>> {
    const q: Record<string, QueryValue> = {
      labelSelector: opts.labelSelector || undefined,
      fieldSelector: opts.fieldSelector || undefined,
      limit: opts.limit,
      continue: opts.continue || undefined,
      resourceVersion: opts.resourceVersion,
    };
    return this.client.request<KubeList<T>>('GET', this.path() + queryString(q), undefined, opts);
  }

  create(obj: T, opts: WriteCallOptions = {}): Promise<T> {
    const ns = this.objectNamespace(obj);
    this.requireNamespace(ns, 'create');
    return this.client.request<T>('POST', this.path(undefined, undefined, ns) + queryString({ fieldManager: opts.fieldManager }), this.withTypeMeta(obj), opts);
  }

  update(obj: T, opts: WriteCallOptions = {}): Promise<T> {
    return this.updateSubresource(obj, '', opts);
  }

  updateStatus(obj: T, opts: WriteCallOptions = {}): Promise<T> {
    return this.updateSubresource(obj, 'status', opts);
  }

  updateSubresource(obj: T, subresource: string, opts: WriteCallOptions = {}): Promise<T> {
    const ns = this.objectNamespace(obj);
    this.requireNamespace(ns, 'update');
    const name = obj.metadata.name;
    if (!name) throw new Error(`update ${this.type.resource}: metadata.name is required`);
    const path = this.path(name, subresource || undefined, ns) + queryString({ fieldManager: opts.fieldManager });
    return this.client.writes.run(this.objectRef(name, ns), obj.metadata.resourceVersion || undefined, () => this.client.request<T>('PUT', path, this.withTypeMeta(obj), opts));
  }

  patch(name: string, type: PatchType, patch: unknown, opts: PatchCallOptions = {}): Promise<T> {
    this.requireNamespace(this.namespace, 'patch');
    if (type === 'apply' && !opts.fieldManager) throw new Error('apply patch: fieldManager is required');
    const q = queryString({ fieldManager: opts.fieldManager, force: opts.force });
    const body = typeof patch === 'string' ? patch : JSON.stringify(patch);
    const send = (): Promise<T> => this.client.request<T>('PATCH', this.path(name, opts.subresource || undefined) + q, body, { signal: opts.signal, contentType: patchContentTypes[type] });
    return this.client.writes.run(this.objectRef(name, this.namespace), Array.isArray(patch) ? undefined : versionOf(patch), send);
  }

  private objectRef(name: string, namespace: string | undefined): ObjectRef {
    return { path: this.path(name, undefined, namespace), name, group: this.type.group, resource: this.type.resource };
  }

  async delete(
    name: string,
    opts: CallOptions & { propagationPolicy?: 'Background' | 'Foreground' | 'Orphan'; preconditions?: { uid?: string; resourceVersion?: string } } = {},
  ): Promise<void> {
    this.requireNamespace(this.namespace, 'delete');
    const body: Record<string, unknown> = { apiVersion: 'v1', kind: 'DeleteOptions' };
    if (opts.propagationPolicy) body.propagationPolicy = opts.propagationPolicy;
    if (opts.preconditions) body.preconditions = opts.preconditions;
    await this.client.request('DELETE', this.path(name), body, { signal: opts.signal });
  }

  watch(opts: WatchCallOptions = {}): AsyncIterable<WatchEvent<T>> {
    const q: Record<string, QueryValue> = {
      watch: true,
      resourceVersion: opts.resourceVersion,
      labelSelector: opts.labelSelector || undefined,
      fieldSelector: opts.fieldSelector || undefined,
      timeoutSeconds: opts.timeoutSeconds,
      allowWatchBookmarks: opts.allowWatchBookmarks || undefined,
    };
    const path = this.path() + queryString(q);
    const client = this.client;
    return {
      async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent<T>> {
        const res = await client.stream(path, opts.signal);
        try {
          yield* decodeWatchStream<T>(wrapStreamErrors(res, path));
        } finally {
          res.destroy();
        }
      },
    };
  }

  private withTypeMeta(obj: T): T {
    const apiVersion = this.type.group === '' ? this.type.version : `${this.type.group}/${this.type.version}`;
    return { ...obj, apiVersion: obj.apiVersion ?? apiVersion, kind: obj.kind ?? this.type.kind };
  }
}

/** Turns a stream cut short (reset, server gone) into a NetworkError; abort reasons pass through. */
async function* wrapStreamErrors(res: HttpResponse, path: string): AsyncGenerator<unknown> {
  try {
    for await (const chunk of res) yield chunk;
  } catch (err) {
    if (err instanceof Error && err.name === 'AbortError') throw err;
    throw new NetworkError(`watch ${path}: stream failed: ${errorMessage(err)}`, { cause: err });
  }
  if (!res.complete) throw new NetworkError(`watch ${path}: stream ended prematurely`);
}
