// Newline-delimited JSON watch events, decoded strictly in order from a byte stream.

import type { KubeObject, WatchEvent, WatchEventType } from '../api/meta.js';
import { NetworkError } from './errors.js';

const eventTypes: ReadonlySet<string> = new Set<WatchEventType>(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

/** Parses one line; throws a NetworkError on anything that is not a watch event (never skips silently). */
function parseWatchLine<T extends KubeObject>(line: string): WatchEvent<T> {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch (err) {
    throw new NetworkError(`watch: undecodable event: ${line.slice(0, 200)}`, { cause: err });
  }
  if (typeof v !== 'object' || v === null) throw new NetworkError(`watch: event is not an object: ${line.slice(0, 200)}`);
  const ev = v as { type?: unknown; object?: unknown };
  if (typeof ev.type !== 'string' || !eventTypes.has(ev.type)) throw new NetworkError(`watch: unknown event type: ${String(ev.type)}`);
  if (typeof ev.object !== 'object' || ev.object === null) throw new NetworkError(`watch: ${ev.type} event without object`);
  const obj = ev.object as T;
  if (typeof obj.metadata !== 'object' || obj.metadata === null) obj.metadata = {};
  return { type: ev.type as WatchEventType, object: obj };
}

/** Yields events from chunks (strings or Buffers) in order; a trailing unterminated line is decoded too. */
export async function* decodeWatchStream<T extends KubeObject>(chunks: AsyncIterable<unknown>): AsyncGenerator<WatchEvent<T>> {
  let buf = '';
  const decoder = new TextDecoder();
  for await (const chunk of chunks) {
    buf += typeof chunk === 'string' ? chunk : decoder.decode(chunk as Uint8Array, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line !== '') yield parseWatchLine<T>(line);
    }
  }
  buf += decoder.decode();
  const rest = buf.trim();
  if (rest !== '') yield parseWatchLine<T>(rest);
}
