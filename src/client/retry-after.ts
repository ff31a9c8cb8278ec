// 429 TooManyRequests with a Retry-After: the server did nothing for the request and says when to
// send it again, so the client does, as client-go does (up to 10 times), whatever the verb. Callers
// see the answer of the last try. A 429 without Retry-After, and 5xx answers, go back to the
// caller, whose controller or loop decides (client-go also retries a 5xx that carries Retry-After;
// here that stays the caller's choice, as a slow answer such as a 504 for a future resourceVersion
// would otherwise be waited for ten times over).

import type { Logger } from '../util/logger.js';
import { realClock, type Clock } from '../util/clock.js';
import { readBody, retryAfterSecondsOf, type Transport } from './http-transport.js';

/** client-go's default number of retries of one request. */
export const MAX_RETRIES = 10;

export function retryAfterTransport(inner: Transport, log: Logger, clock: Pick<Clock, 'sleep'> = realClock): Transport {
  return {
    get server() {
      return inner.server;
    },
    async send(s) {
      for (let retry = 1; ; retry++) {
        const res = await inner.send(s);
        const seconds = res.statusCode === 429 ? retryAfterSecondsOf(res) : undefined;
        if (seconds === undefined || retry > MAX_RETRIES) return res;
        // the refusal's body is not needed; reading it frees the stream
        await readBody(res, `${s.method} ${s.path}`).catch(() => '');
        log.debug('http retry after 429', { method: s.method, path: s.path, retryAfterSeconds: seconds, retry });
        await clock.sleep(seconds * 1000, s.signal);
      }
    },
    preconnect: () => inner.preconnect(),
    close: () => inner.close(),
  };
}
