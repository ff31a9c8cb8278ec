// Answers for requests that fail before they reach the handler (Node's HTTP parser rejects them,
// or their headers take too long): a Kubernetes Status body like every other refusal, instead of
// Node's bare default response.

import type { Status } from '../../api/meta.js';
import type { StatusReason } from './errors.js';

export interface TransportRejection {
  code: number;
  reason: StatusReason;
  message: string;
}

/**
 * What to answer for a `clientError` of the HTTP server; undefined when nothing can be written
 * (the TLS layer failed, or the peer is gone).
 */
export function rejectionFor(err: Error & { code?: string; reason?: string }, limits: { maxHeaderBytes: number }): TransportRejection | undefined {
  const code = err.code ?? '';
  if (code === 'HPE_HEADER_OVERFLOW') {
    return { code: 431, reason: 'RequestEntityTooLarge', message: `Request Header Fields Too Large: the request headers exceed ${limits.maxHeaderBytes} bytes` };
  }
  if (code === 'HPE_CHUNK_EXTENSIONS_OVERFLOW') {
    return { code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: chunk extensions too long' };
  }
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { code: 408, reason: 'Timeout', message: 'Timeout: the request headers did not arrive in time' };
  }
  if (code.startsWith('HPE_')) {
    const detail = typeof err.reason === 'string' && err.reason ? err.reason : code;
    return { code: 400, reason: 'BadRequest', message: `malformed HTTP request: ${detail}` };
  }
  return undefined;
}

const STATUS_TEXT: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 413: 'Payload Too Large', 431: 'Request Header Fields Too Large' };

/** A complete HTTP/1.1 response (headers and Status body) that closes the connection. */
export function rejectionResponse(r: TransportRejection): string {
  const status: Status = { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: r.message, reason: r.reason, code: r.code };
  const body = JSON.stringify(status);
  return [
    `HTTP/1.1 ${r.code} ${STATUS_TEXT[r.code] ?? 'Error'}`,
    'Content-Type: application/json',
    'Cache-Control: no-cache, private',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}
