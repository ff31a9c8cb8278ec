// The response a transport hands to the REST client, the same over HTTP/1.1 and HTTP/2: status and
// headers once they arrive, the body as an async iterable of chunks (unread until iterated).

import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';

export interface HttpResponse extends AsyncIterable<Buffer> {
  readonly statusCode: number;
  /** Lower-case names; HTTP/2 pseudo-headers removed. */
  readonly headers: IncomingHttpHeaders;
  /** Whether the request went over a connection that already existed (a new one costs a TLS handshake). */
  readonly reusedConnection: boolean;
  /** Whether the body was received to its end (false when the stream was cut short). */
  readonly complete: boolean;
  /** Stops receiving the body (cancels the request stream or closes the HTTP/1.1 connection). */
  destroy(err?: Error): void;
}

/** Adapts a node:http response; `reused` tells whether its socket came from the keep-alive pool. */
export function http1Response(res: IncomingMessage, reused: boolean): HttpResponse {
  return {
    statusCode: res.statusCode ?? 0,
    headers: res.headers,
    reusedConnection: reused,
    get complete() {
      return res.complete;
    },
    destroy: (err) => {
      res.destroy(err);
    },
    [Symbol.asyncIterator]: () => res[Symbol.asyncIterator]() as AsyncIterator<Buffer>,
  };
}
