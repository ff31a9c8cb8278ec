// The handlers are written against node:http's request and response. Over HTTP/2 they receive
// node:http2's compatibility objects instead, which have the same members except for the few that
// this module answers for both protocols.

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { constants, Http2ServerRequest, Http2ServerResponse } from 'node:http2';

/** True when the response goes out on an HTTP/2 stream rather than an HTTP/1.x connection. */
export function isHttp2(res: ServerResponse): boolean {
  return (res as unknown) instanceof Http2ServerResponse;
}

function http2Stream(res: ServerResponse): Http2ServerResponse['stream'] | undefined {
  return (res as unknown) instanceof Http2ServerResponse ? (res as unknown as Http2ServerResponse).stream : undefined;
}

/** True once the response can no longer reach the client (its connection or stream is gone). */
export function responseClosed(res: ServerResponse): boolean {
  const stream = http2Stream(res);
  return stream ? stream.destroyed || stream.closed : res.destroyed;
}

/**
 * Abandons a response whose client does not read it: over HTTP/2 the stream is reset, which frees
 * the bytes it holds without touching the other streams of the connection (ending it would keep
 * them until the client reads); over HTTP/1.1 the response is ended.
 */
export function abandonResponse(res: ServerResponse): void {
  const stream = http2Stream(res);
  if (stream) {
    if (!stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
    return;
  }
  if (!res.writableEnded) res.end();
}

/**
 * The request's headers, joined (`headers`) and with every value kept apart (`headersDistinct`,
 * which node:http2's request lacks: built from its raw headers, without pseudo-headers, only when
 * read).
 */
export function headerViews(req: IncomingMessage): { headers: IncomingHttpHeaders; headersDistinct: Record<string, string[] | undefined> } {
  if (!((req as unknown) instanceof Http2ServerRequest)) return req;
  let distinct: Record<string, string[]> | undefined;
  return {
    headers: req.headers,
    get headersDistinct(): Record<string, string[]> {
      distinct ??= distinctHeaders(req.rawHeaders);
      return distinct;
    },
  };
}

function distinctHeaders(raw: string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (name.startsWith(':')) continue;
    (out[name] ??= []).push(raw[i + 1] as string);
  }
  return out;
}
