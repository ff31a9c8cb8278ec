// Writing responses: JSON/YAML objects and Status errors with the headers clients expect.

import type { ServerResponse } from 'node:http';
import type { Status } from '../../api/meta.js';
import { toYaml } from '../../util/yaml.js';
import { ApiError, errors } from './errors.js';

export function sendJson(res: ServerResponse, code: number, body: unknown, opts: { yaml?: boolean; pretty?: boolean; head?: boolean } = {}): void {
  const text = opts.yaml ? toYaml(body) : opts.pretty ? JSON.stringify(body, null, 2) + '\n' : JSON.stringify(body);
  res.writeHead(code, {
    'Content-Type': opts.yaml ? 'application/yaml' : 'application/json',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(opts.head ? undefined : text);
}

export function sendText(res: ServerResponse, code: number, text: string): void {
  res.writeHead(code, {
    'Content-Type': 'text/plain; charset=utf-8',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache, private',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  return errors.internal(err instanceof Error ? err.message : String(err), err);
}

export function sendStatus(res: ServerResponse, err: ApiError): void {
  const status: Status = err.status;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const retry = status.details?.retryAfterSeconds;
  if (retry !== undefined) res.setHeader('Retry-After', String(retry));
  sendJson(res, err.code, status);
}
