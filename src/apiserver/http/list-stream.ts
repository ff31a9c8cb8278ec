// Writes a JSON object whose one array member (a list's `items`, a Table's `rows`) arrives in
// batches: the response is sent in chunks as the batches come, never built as one string, with
// backpressure (a slow reader pauses the reading) and a turn of the event loop between batches.

import type { ServerResponse } from 'node:http';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { responseClosed } from './http-version.js';

/** Bytes gathered before one write to the socket. */
const FLUSH_BYTES = 64 * 1024;

export interface JsonArrayStream {
  /** Members written before the array, in order. */
  head: Record<string, unknown>;
  /** Name of the array member, written last. */
  arrayKey: string;
  elements: AsyncIterable<unknown[]>;
  pretty: boolean;
}

/** Buffered writes that wait for 'drain'; false once the client has gone away. */
class ChunkWriter {
  private pending: string[] = [];
  private pendingBytes = 0;
  constructor(private readonly res: ServerResponse) {}

  async push(text: string): Promise<boolean> {
    this.pending.push(text);
    this.pendingBytes += text.length;
    return this.pendingBytes >= FLUSH_BYTES ? this.flush() : !responseClosed(this.res);
  }

  async flush(): Promise<boolean> {
    if (responseClosed(this.res)) return false;
    if (this.pending.length === 0) return true;
    const chunk = this.pending.join('');
    this.pending = [];
    this.pendingBytes = 0;
    if (this.res.write(chunk)) return true;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
    return !responseClosed(this.res);
  }
}

/** The text of `value` as it appears nested at `depth` inside a pretty-printed document. */
function prettyAt(value: unknown, depth: number): string {
  const pad = '  '.repeat(depth);
  return pad + JSON.stringify(value, null, 2).replace(/\n/g, `\n${pad}`);
}

/**
 * Sends status 200 and the object, byte for byte what JSON.stringify would give for
 * `{ ...head, [arrayKey]: [...all elements] }` (pretty: with 2-space indent and a final newline).
 * Resolves when done, or early (without error) if the client disconnects.
 */
export async function streamJsonArray(res: ServerResponse, s: JsonArrayStream, headers: Record<string, string>): Promise<void> {
  const empty = Object.keys(s.head).length === 0;
  const headText = s.pretty ? JSON.stringify(s.head, null, 2) : JSON.stringify(s.head);
  // The head without its closing "}" (pretty: "\n}"), then a comma unless it has no members.
  const open = empty ? '{' : headText.slice(0, headText.length - (s.pretty ? 2 : 1));
  const sep = empty ? '' : ',';
  res.writeHead(200, headers);
  const out = new ChunkWriter(res);
  await out.push(s.pretty ? `${open}${sep}\n  ${JSON.stringify(s.arrayKey)}: [` : `${open}${sep}${JSON.stringify(s.arrayKey)}:[`);
  let count = 0;
  for await (const batch of s.elements) {
    for (const el of batch) {
      const text = s.pretty ? `${count > 0 ? ',' : ''}\n${prettyAt(el, 2)}` : `${count > 0 ? ',' : ''}${JSON.stringify(el)}`;
      count++;
      if (!(await out.push(text))) return;
    }
    if (!(await out.flush())) return;
    await nextTurn();
  }
  await out.push(s.pretty ? (count > 0 ? '\n  ]\n}\n' : ']\n}\n') : ']}');
  if (!(await out.flush())) return;
  res.end();
}
