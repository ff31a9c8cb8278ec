// Human-readable requests and responses for failure messages (long parts cut), and the collector
// that groups failures of a long campaign by a signature so each distinct one is listed once.

import type { FuzzRequest, FuzzResponse, RawResponse } from './http-exchange.js';

const MAX_TEXT = 400;

function truncate(s: string, max = MAX_TEXT): string {
  return s.length <= max ? s : `${s.slice(0, max)}… (${s.length} chars)`;
}

function printable(buf: Buffer | undefined, max = MAX_TEXT): string {
  if (!buf || buf.length === 0) return '(none)';
  return JSON.stringify(truncate(buf.subarray(0, max * 4).toString('utf8'), max)) + (buf.length > max * 4 ? ` (${buf.length} bytes)` : '');
}

export function describeRequest(r: FuzzRequest): string {
  const headers = Object.entries(r.headers).map(([k, v]) => `${k}: ${truncate(v, 120)}`);
  return [
    `${r.method} ${truncate(r.path, 300)}${r.query ? `?${truncate(r.query, 300)}` : ''}`,
    `  headers: ${headers.length ? headers.join(' | ') : '(none)'}`,
    `  body: ${printable(r.body)}${r.body && r.body.length > MAX_TEXT ? ` [${r.body.length} bytes]` : ''}`,
  ].join('\n');
}

export function describeResponse(r: FuzzResponse): string {
  if (r.notSent) return `not sent: ${r.notSent}`;
  const head = r.status === undefined ? 'no response' : `HTTP ${r.status} content-type=${String(r.headers['content-type'] ?? '(none)')}`;
  const flags = [r.error ? `error=${r.error}` : '', r.timedOut ? 'timed out' : '', r.truncated ? 'stream cut after peek' : ''].filter(Boolean).join(' ');
  return `${head}${flags ? ` [${flags}]` : ''}\n  body: ${printable(r.body)}`;
}

export function describeRaw(r: RawResponse): string {
  const flags = [r.closed ? 'closed' : '', r.timedOut ? 'timed out' : '', r.error ? `error=${r.error}` : ''].filter(Boolean).join(' ');
  return `${r.status === undefined ? 'no parsable response' : `HTTP ${r.status}`}${flags ? ` [${flags}]` : ''}\n  bytes: ${printable(r.bytes)}`;
}

export interface Finding {
  signature: string;
  count: number;
  /** The first (smallest by size) example. */
  example: string;
  exampleSize: number;
}

/** Groups violations by signature; keeps the smallest example of each. */
export class FindingCollector {
  private readonly byKey = new Map<string, Finding>();

  add(signature: string, example: string): void {
    const f = this.byKey.get(signature);
    if (!f) {
      this.byKey.set(signature, { signature, count: 1, example, exampleSize: example.length });
      return;
    }
    f.count++;
    if (example.length < f.exampleSize) {
      f.example = example;
      f.exampleSize = example.length;
    }
  }

  get size(): number {
    return this.byKey.size;
  }

  list(): Finding[] {
    return [...this.byKey.values()].sort((a, b) => b.count - a.count);
  }

  render(): string {
    return this.list().map((f, i) => `#${i + 1} ×${f.count} ${f.signature}\n${f.example}`).join('\n\n');
  }
}
