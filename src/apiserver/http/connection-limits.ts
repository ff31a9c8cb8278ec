// How many connections the API server holds, and which one gives way when it is full.
//
// A flood of connections that never finish a TLS handshake, or never send a request, must not lock
// out real clients, who all come from 127.0.0.1 in the demo and tests just like a local flood.
// So reaching a cap does not simply refuse newcomers: a new connection takes the place of the
// oldest connection that has not proven itself yet: first one still in its TLS handshake, then one
// that finished the handshake without a verified client certificate and has sent no request, then
// one idle between requests. A connection with a request in flight (watches included) or with a
// verified client certificate is never displaced; only when such connections fill a cap is the
// newcomer refused.

import { readFileSync } from 'node:fs';

export interface ConnectionLimits {
  /** Concurrent connections from all addresses; keep it below the file-descriptor limit. */
  maxConnections: number;
  /** Concurrent connections from one client address. */
  maxConnectionsPerAddress: number;
  /** A TLS handshake must finish within this many ms. */
  handshakeTimeoutMs: number;
  /** A request's headers, and on a new connection its first request (HTTP/2: its first stream), must arrive within this many ms. */
  headersTimeoutMs: number;
  /** An idle keep-alive connection (HTTP/2: one with no stream open) is closed after this many ms. */
  keepAliveTimeoutMs: number;
  /** Largest request header block, in bytes (431 beyond; over HTTP/2 the stream is refused). */
  maxHeaderBytes: number;
  /**
   * Requests in flight at once on one HTTP/2 connection (its SETTINGS_MAX_CONCURRENT_STREAMS).
   * The connection caps count connections, so this is what bounds the requests, watches included,
   * that one admitted connection can hold.
   */
  maxStreamsPerConnection: number;
}

/** Assumed soft descriptor limit when the platform does not tell (no /proc). */
const FALLBACK_DESCRIPTOR_LIMIT = 4096;
/** Descriptors never handed to connections: SQLite files, logs, outgoing clients, listeners. */
const MIN_RESERVED_DESCRIPTORS = 128;

/** The soft RLIMIT_NOFILE of this process (Linux /proc/self/limits); undefined when unknown. */
export function softDescriptorLimit(readLimits: () => string = () => readFileSync('/proc/self/limits', 'utf8')): number | undefined {
  let text: string;
  try {
    text = readLimits();
  } catch {
    return undefined;
  }
  const m = /^Max open files\s+(\S+)/m.exec(text);
  if (!m) return undefined;
  if (m[1] === 'unlimited') return Number.POSITIVE_INFINITY;
  const n = Number(m[1]);
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/**
 * Production defaults for a process with `descriptorLimit` file descriptors: a quarter of them (at
 * least 128) stay free for everything else, so existing clients and storage never hit EMFILE.
 * Timeouts follow kube-apiserver (32 s to read request headers) and Go's clients (10 s handshake,
 * idle keep-alive connections reused for 90 s, so the server keeps them longer; an HTTP/2 connection
 * with no stream open is idle in the same sense).
 */
export function defaultConnectionLimits(descriptorLimit: number | undefined): ConnectionLimits {
  const fds = Math.min(descriptorLimit ?? FALLBACK_DESCRIPTOR_LIMIT, 1 << 20);
  const maxConnections = Math.max(16, fds - Math.max(MIN_RESERVED_DESCRIPTORS, Math.floor(fds / 4)));
  return {
    maxConnections,
    maxConnectionsPerAddress: Math.min(maxConnections, Math.max(1024, Math.floor(maxConnections / 4))),
    handshakeTimeoutMs: 10_000,
    headersTimeoutMs: 32_000,
    keepAliveTimeoutMs: 125_000,
    maxHeaderBytes: 16 * 1024,
    // kube-apiserver's default: enough for every watch of an agent on one connection.
    maxStreamsPerConnection: 1000,
  };
}

/** Defaults overridden by `given`, validated once; throws a TypeError naming every bad field. */
export function resolveConnectionLimits(given: Partial<ConnectionLimits> = {}, descriptorLimit: number | undefined = softDescriptorLimit()): Readonly<ConnectionLimits> {
  const limits: ConnectionLimits = { ...defaultConnectionLimits(descriptorLimit) };
  for (const [k, v] of Object.entries(given) as [keyof ConnectionLimits, number | undefined][]) {
    if (v !== undefined) limits[k] = v;
  }
  const problems = (Object.keys(limits) as (keyof ConnectionLimits)[])
    .filter((k) => !(Number.isSafeInteger(limits[k]) && limits[k] > 0))
    .map((k) => `${k} must be a positive integer, got ${String(limits[k])}`);
  if (problems.length > 0) throw new TypeError(`invalid connection limits: ${problems.join('; ')}`);
  return Object.freeze(limits);
}

/** Displacement order, lower first: still in the TLS handshake, handshake done but no request yet, idle. */
type Rank = 0 | 1 | 2;
const HANDSHAKING: Rank = 0;
const SILENT: Rank = 1;
const IDLE: Rank = 2;

interface Entry<T> {
  conn: T;
  address: string;
  rank: Rank;
  inFlight: number;
  trusted: boolean;
}

/** Displaceable entries by rank, each Set in the order they became displaceable (oldest first). */
class DisplacementQueue<T> {
  private readonly byRank: [Set<Entry<T>>, Set<Entry<T>>, Set<Entry<T>>] = [new Set(), new Set(), new Set()];
  add(e: Entry<T>): void {
    this.byRank[e.rank].add(e);
  }
  delete(e: Entry<T>): void {
    this.byRank[e.rank].delete(e);
  }
  oldest(): Entry<T> | undefined {
    for (const set of this.byRank) {
      const first = set.values().next();
      if (!first.done) return first.value;
    }
    return undefined;
  }
}

interface AddressState<T> {
  count: number;
  queue: DisplacementQueue<T>;
}

export type Admission<T> =
  | { admitted: true; /** An unproven connection to close to make room. */ displaced?: T }
  | { admitted: false; /** Which cap is full of proven connections. */ limit: 'address' | 'global' };

/** The bookkeeping behind admission; no I/O: the server closes what it is told to. */
export class ConnectionTable<T> {
  private readonly entries = new Map<T, Entry<T>>();
  private readonly queue = new DisplacementQueue<T>();
  private readonly addresses = new Map<string, AddressState<T>>();

  constructor(private readonly limits: Pick<ConnectionLimits, 'maxConnections' | 'maxConnectionsPerAddress'>) {}

  get size(): number {
    return this.entries.size;
  }

  countFrom(address: string): number {
    return this.addresses.get(address)?.count ?? 0;
  }

  /** A new TCP connection from `address`: admitted (maybe displacing one) or refused. */
  open(conn: T, address: string): Admission<T> {
    let displaced: Entry<T> | undefined;
    const here = this.addresses.get(address);
    if (here && here.count >= this.limits.maxConnectionsPerAddress) {
      displaced = here.queue.oldest();
      if (!displaced) return { admitted: false, limit: 'address' };
    } else if (this.entries.size >= this.limits.maxConnections) {
      displaced = this.queue.oldest();
      if (!displaced) return { admitted: false, limit: 'global' };
    }
    if (displaced) this.closed(displaced.conn);
    const e: Entry<T> = { conn, address, rank: HANDSHAKING, inFlight: 0, trusted: false };
    this.entries.set(conn, e);
    let state = this.addresses.get(address);
    if (!state) {
      state = { count: 0, queue: new DisplacementQueue() };
      this.addresses.set(address, state);
    }
    state.count++;
    this.enqueue(e);
    return displaced ? { admitted: true, displaced: displaced.conn } : { admitted: true };
  }

  /** TLS handshake done; `trusted` when the client certificate verified against the client CA. */
  secured(conn: T, trusted: boolean): void {
    this.update(conn, (e) => {
      e.trusted = trusted;
      e.rank = SILENT;
    });
  }

  requestStarted(conn: T): void {
    this.update(conn, (e) => {
      e.inFlight++;
    });
  }

  requestFinished(conn: T): void {
    this.update(conn, (e) => {
      e.inFlight = Math.max(0, e.inFlight - 1);
      e.rank = IDLE;
    });
  }

  /** True while a response is being written on the connection. */
  busy(conn: T): boolean {
    return (this.entries.get(conn)?.inFlight ?? 0) > 0;
  }

  /** The connection is gone (closed, displaced or destroyed); idempotent. */
  closed(conn: T): void {
    const e = this.entries.get(conn);
    if (!e) return;
    this.dequeue(e);
    this.entries.delete(conn);
    const state = this.addresses.get(e.address);
    if (state && --state.count === 0) this.addresses.delete(e.address);
  }

  private update(conn: T, change: (e: Entry<T>) => void): void {
    const e = this.entries.get(conn);
    if (!e) return;
    this.dequeue(e);
    change(e);
    this.enqueue(e);
  }

  private enqueue(e: Entry<T>): void {
    if (e.trusted || e.inFlight > 0) return;
    this.queue.add(e);
    this.addresses.get(e.address)?.queue.add(e);
  }

  private dequeue(e: Entry<T>): void {
    this.queue.delete(e);
    this.addresses.get(e.address)?.queue.delete(e);
  }
}
