// Reads a LIST from the store in bounded batches, yielding to the event loop between them, so that
// a large collection neither blocks other requests nor is held in memory (or one string) at once.
//
// An unpaged list (no `limit`) is read lazily, batch after batch, as the response is written; one
// whose stored size exceeds the response cap is refused up front with 413, telling the client to
// paginate. A page (`limit` > 0) is never refused: it is cut at the cap instead and carries a
// continue token, which the API allows ("fewer items than limit" with `continue` set).

import { setImmediate as nextTurn } from 'node:timers/promises';
import type { KubeObject } from '../../api/meta.js';
import { errors } from '../http/errors.js';
import type { ListResult, SelectorHints, Store, StoredObject } from '../storage/types.js';

/** Stored bytes read per batch (a few ms of parsing). */
const TARGET_BATCH_BYTES = 2 * 1024 * 1024;
const MAX_BATCH_ITEMS = 1000;
/** Batch size before anything is known about the objects' sizes. */
const FIRST_BATCH_ITEMS = 50;

export interface ListReadOptions {
  prefix: string;
  /** Stored object → the wire form of the requested version. */
  toWire(obj: KubeObject): KubeObject;
  filter?: (obj: KubeObject) => boolean;
  /** What `filter` pins down, handed to the store so it can skip what the filter would reject. */
  hints?: SelectorHints;
  /** Page size asked by the client; undefined or 0 = the whole collection. */
  limit?: number;
  startAfterKey?: string;
  /** Revision to read at (continue token, Exact); default the current one. */
  atRevision?: number;
  /** Largest response, in stored bytes. */
  maxBytes: number;
}

export interface ListRead {
  revision: number;
  /** Key of the last item returned when the page was cut (limit or size). */
  continueAfterKey?: string;
  /** Items after the page (unfiltered pages only). */
  remaining?: number;
  /** Wire-form items in batches; each batch is read only once the previous one was consumed. */
  batches: AsyncIterable<KubeObject[]>;
}

const acceptAll = (): boolean => true;

function sizeOf(it: StoredObject): number {
  return it.bytes ?? JSON.stringify(it.object).length;
}


/** Batched reads of one collection at one revision (pinned by the first read). */
class BatchedReader {
  private avgBytes: number | undefined;
  revision: number | undefined;

  constructor(private readonly store: Store, private readonly o: ListReadOptions, knownAvg: number | undefined) {
    this.avgBytes = knownAvg;
  }

  batchSize(): number {
    if (this.avgBytes === undefined || this.avgBytes <= 0) return FIRST_BATCH_ITEMS;
    return Math.max(1, Math.min(MAX_BATCH_ITEMS, Math.floor(TARGET_BATCH_BYTES / this.avgBytes)));
  }

  read(after: string | undefined, n: number): ListResult {
    // Any in-store filter (even accept-all) spares the store its count of the remaining items,
    // which batched reads do not need; filtering happens here so that a batch stays bounded by the
    // rows examined, not by the matches found.
    const r = this.store.list(this.o.prefix, {
      limit: n,
      filter: acceptAll,
      ...(this.o.filter && this.o.hints ? { hints: this.o.hints } : {}),
      ...(after !== undefined ? { startAfterKey: after } : {}),
      ...(this.revision !== undefined ? { atRevision: this.revision } : {}),
    });
    this.revision ??= r.revision;
    if (r.items.length > 0) {
      const avg = r.items.reduce((sum, it) => sum + sizeOf(it), 0) / r.items.length;
      this.avgBytes = Math.max(avg, this.avgBytes ?? 0);
    }
    return r;
  }

  /** Items after `key` at the pinned revision (one object read; the store counts the rest). */
  countAfter(key: string): number {
    const r = this.store.list(this.o.prefix, { startAfterKey: key, limit: 1, atRevision: this.revision! });
    return r.items.length + (r.remaining ?? 0);
  }
}

export async function readList(store: Store, o: ListReadOptions): Promise<ListRead> {
  // With a label hint the store counts only the objects carrying the label (cheap with an index),
  // never fewer than the filter keeps, so the size check below stays sound. A read at a past
  // revision is still sized by the current state, unhinted: the whole collection is the better
  // bound when the matches may have changed since.
  const hinted = o.filter && o.hints && o.atRevision === undefined ? { hints: o.hints } : {};
  const estimate = store.listSize?.(o.prefix, { ...(o.startAfterKey !== undefined ? { startAfterKey: o.startAfterKey } : {}), ...hinted });
  const avg = estimate && estimate.items > 0 ? estimate.bytes / estimate.items : undefined;
  const reader = new BatchedReader(store, o, avg);
  if (o.atRevision !== undefined) reader.revision = o.atRevision;
  if (o.limit !== undefined && o.limit > 0) return readPage(reader, o, o.limit);
  if (estimate && estimate.bytes > o.maxBytes && !o.filter) throw errors.listTooLarge(estimate.bytes, estimate.items, o.maxBytes);
  if (!estimate || estimate.bytes > o.maxBytes) await checkMatchedSize(reader, o);
  const first = reader.read(o.startAfterKey, reader.batchSize());
  return { revision: reader.revision!, batches: lazyBatches(reader, o, first) };
}

/** Sums the stored size of what the list would return (selectors applied); 413 beyond the cap. */
async function checkMatchedSize(reader: BatchedReader, o: ListReadOptions): Promise<void> {
  let after = o.startAfterKey;
  let bytes = 0;
  let items = 0;
  for (;;) {
    const r = reader.read(after, reader.batchSize());
    for (const it of r.items) {
      if (o.filter && !o.filter(it.object)) continue;
      bytes += sizeOf(it);
      items++;
    }
    if (bytes > o.maxBytes) throw errors.listTooLarge(bytes, items, o.maxBytes);
    if (!r.continueAfterKey) return;
    after = r.continueAfterKey;
    await nextTurn();
  }
}

async function* lazyBatches(reader: BatchedReader, o: ListReadOptions, first: ListResult): AsyncGenerator<KubeObject[]> {
  let r = first;
  for (;;) {
    const out: KubeObject[] = [];
    for (const it of r.items) if (!o.filter || o.filter(it.object)) out.push(o.toWire(it.object));
    if (out.length > 0) yield out;
    if (!r.continueAfterKey) return;
    await nextTurn();
    r = reader.read(r.continueAfterKey, reader.batchSize());
  }
}

/** Reads one page: at most `limit` items and (beyond its first item) at most maxBytes. */
async function readPage(reader: BatchedReader, o: ListReadOptions, limit: number): Promise<ListRead> {
  const taken: KubeObject[] = [];
  let bytes = 0;
  let after = o.startAfterKey;
  let lastTaken: string | undefined;
  let cut = false;
  for (;;) {
    // Unfiltered, one item past the limit is enough to know whether more exist.
    const n = o.filter ? reader.batchSize() : Math.min(reader.batchSize(), limit - taken.length + 1);
    const r = reader.read(after, n);
    for (const it of r.items) {
      if (o.filter && !o.filter(it.object)) continue;
      const size = sizeOf(it);
      if (taken.length >= limit || (taken.length > 0 && bytes + size > o.maxBytes)) {
        cut = true;
        break;
      }
      taken.push(o.toWire(it.object));
      bytes += size;
      lastTaken = it.key;
    }
    if (cut || !r.continueAfterKey) break;
    after = r.continueAfterKey;
    await nextTurn();
  }
  const out: ListRead = { revision: reader.revision!, batches: inBatches(taken) };
  if (cut && lastTaken !== undefined) {
    out.continueAfterKey = lastTaken;
    if (!o.filter) out.remaining = reader.countAfter(lastTaken);
  }
  return out;
}

async function* inBatches(items: KubeObject[]): AsyncGenerator<KubeObject[]> {
  const size = 100;
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size);
}
