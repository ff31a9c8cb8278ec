// Encoding responses and watch events in the negotiated representation (JSON, YAML, Table,
// PartialObjectMetadata), with a per-object cache so one event serialises once for many watchers.
// Lists are streamed batch by batch (YAML, rarely used for large lists, is built in memory).

import type { ServerResponse } from 'node:http';
import type { KubeList, KubeObject, WatchEventType } from '../../api/meta.js';
import type { ListSource } from '../registry/rest-reads.js';
import type { ServedResource } from '../registry/types.js';
import { toWire } from '../registry/versions.js';
import { builtinPrinterColumns } from './builtin-printers.js';
import type { OutputFormat } from './negotiate.js';
import { streamJsonArray, type JsonArrayStream } from './list-stream.js';
import { sendJson } from './respond.js';
import { toPartial, toTable } from './table.js';
import type { EncodedLine, WatchEncoder } from './watch.js';

export interface OutputContext {
  served: ServedResource;
  version: string;
  format: OutputFormat;
  includeObject: 'None' | 'Metadata' | 'Object';
  now: number;
  pretty: boolean;
  /** Texts sent as `Warning: 299 - "<text>"` headers (unknown fields, ...). */
  warnings?: string[];
}

function setWarnings(res: ServerResponse, o: OutputContext): void {
  if (o.warnings && o.warnings.length > 0) res.setHeader('Warning', o.warnings.map((w) => `299 - ${JSON.stringify(w)}`));
}

function tableOptions(o: OutputContext, withHeaders: boolean): Parameters<typeof toTable>[2] {
  const apiVersion = o.format.type === 'table' ? o.format.apiVersion : 'meta.k8s.io/v1';
  const columns = o.served.printerColumns?.[o.version] ?? (o.served.custom ? undefined : builtinPrinterColumns(o.served.def.group, o.served.def.resource));
  return { apiVersion, ...(columns ? { columns } : {}), includeObject: o.includeObject, withHeaders, now: o.now };
}

/** Writes a single wire-form object. */
export function sendObject(res: ServerResponse, code: number, obj: KubeObject, o: OutputContext): void {
  setWarnings(res, o);
  let body: unknown = obj;
  if (o.format.type === 'table') body = toTable([obj], { resourceVersion: obj.metadata.resourceVersion }, tableOptions(o, true));
  else if (o.format.type === 'partial') body = toPartial(obj);
  sendJson(res, code, body, { yaml: o.format.type === 'yaml', pretty: o.pretty });
}

/** A list already in memory as a ListSource (one batch). */
export function listSourceOf(list: KubeList): ListSource {
  return { apiVersion: list.apiVersion, kind: list.kind, metadata: list.metadata, batches: (async function* () { yield list.items; })() };
}

async function* mapBatches<T>(batches: AsyncIterable<KubeObject[]>, f: (items: KubeObject[]) => T[]): AsyncGenerator<T[]> {
  for await (const b of batches) yield f(b);
}

/** The list as a head plus a streamed array, in the negotiated JSON representation. */
function jsonListStream(list: ListSource, o: OutputContext): JsonArrayStream {
  if (o.format.type === 'table') {
    const { rows: _rows, ...head } = toTable([], list.metadata, tableOptions(o, true));
    void _rows;
    const rowOpts = tableOptions(o, false);
    return { head, arrayKey: 'rows', pretty: o.pretty, elements: mapBatches(list.batches, (items) => toTable(items, list.metadata, rowOpts).rows as unknown[]) };
  }
  if (o.format.type === 'partial') {
    const head = { kind: 'PartialObjectMetadataList', apiVersion: 'meta.k8s.io/v1', metadata: list.metadata };
    return { head, arrayKey: 'items', pretty: o.pretty, elements: mapBatches(list.batches, (items) => items.map(toPartial)) };
  }
  return { head: listHead(list, o), arrayKey: 'items', pretty: o.pretty, elements: o.served.custom ? list.batches : mapBatches(list.batches, (items) => items.map(withoutTypeMeta)) };
}

/**
 * The items of a built-in list carry no apiVersion and kind (kube-apiserver encodes typed lists so);
 * custom resource items keep theirs, and a custom resource list always has a continue field.
 */
function withoutTypeMeta(obj: KubeObject): KubeObject {
  const { apiVersion: _a, kind: _k, ...rest } = obj;
  return rest as KubeObject;
}

function listHead(list: ListSource, o: OutputContext): Record<string, unknown> {
  const metadata = o.served.custom ? { continue: '', ...list.metadata } : list.metadata;
  return { apiVersion: list.apiVersion, kind: list.kind, metadata };
}

/** Sends a list, streaming its items as they are read; resolves once sent (or the client left). */
export async function sendList(res: ServerResponse, list: ListSource, o: OutputContext): Promise<void> {
  setWarnings(res, o);
  if (o.format.type === 'yaml') {
    const items: KubeObject[] = [];
    for await (const b of list.batches) items.push(...(o.served.custom ? b : b.map(withoutTypeMeta)));
    sendJson(res, 200, { ...listHead(list, o), items }, { yaml: true });
    return;
  }
  await streamJsonArray(res, jsonListStream(list, o), { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
}

/**
 * Per-server cache: stored object identity → encoded watch line per wire version and event type,
 * so one event is serialised, UTF-8 encoded and chunk-framed once for all its watchers. `last` is
 * the line handed out most recently: an event's watchers ask for the same line one after another
 * during its fan-out, so most lookups end there without touching the maps.
 */
export interface EncodeCache {
  byResource: Map<string, WeakMap<KubeObject, Map<WatchEventType, EncodedLine>>>;
  last: { cacheKey: string; obj: KubeObject; type: WatchEventType; line: EncodedLine } | undefined;
}

export function createEncodeCache(): EncodeCache {
  return { byResource: new Map(), last: undefined };
}

/** The line (newline included) and the same bytes as one HTTP/1.1 chunk, sharing one allocation. */
function encoded(text: string): EncodedLine {
  const len = Buffer.byteLength(text);
  const head = `${len.toString(16)}\r\n`;
  const chunk = Buffer.allocUnsafe(head.length + len + 2);
  chunk.write(head, 0, 'latin1');
  chunk.write(text, head.length, 'utf8');
  chunk.write('\r\n', head.length + len, 'latin1');
  return { chunk, line: chunk.subarray(head.length, head.length + len) };
}

function lineOf(type: WatchEventType, object: unknown): EncodedLine {
  return encoded(`${JSON.stringify({ type, object })}\n`);
}

export function watchEncoder(o: OutputContext, cache: EncodeCache): WatchEncoder {
  const apiVersion = o.served.def.group ? `${o.served.def.group}/${o.version}` : o.version;
  const cacheKey = `${o.served.def.group}/${o.served.def.resource}/${o.version}`;
  return {
    line(type: WatchEventType, obj: KubeObject, first: boolean): EncodedLine {
      if (type === 'ERROR' || type === 'BOOKMARK') return lineOf(type, obj);
      if (o.format.type === 'table') {
        const wire = toWire(o.served, o.version, obj);
        return lineOf(type, toTable([wire], { resourceVersion: wire.metadata.resourceVersion }, tableOptions(o, first)));
      }
      if (o.format.type === 'partial') return lineOf(type, toPartial(toWire(o.served, o.version, obj)));
      const last = cache.last;
      if (last !== undefined && last.obj === obj && last.type === type && last.cacheKey === cacheKey) return last.line;
      let byObj = cache.byResource.get(cacheKey);
      if (!byObj) {
        byObj = new WeakMap();
        cache.byResource.set(cacheKey, byObj);
      }
      let byType = byObj.get(obj);
      if (!byType) {
        byType = new Map();
        byObj.set(obj, byType);
      }
      let line = byType.get(type);
      if (line === undefined) {
        line = encoded(`{"type":"${type}","object":${JSON.stringify(toWire(o.served, o.version, obj))}}\n`);
        byType.set(type, line);
      }
      cache.last = { cacheKey, obj, type, line };
      return line;
    },
    bookmark(revision: number): KubeObject {
      return { kind: o.served.def.kind, apiVersion, metadata: { resourceVersion: String(revision) } };
    },
  };
}
