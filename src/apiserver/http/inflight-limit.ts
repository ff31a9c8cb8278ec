// kube-apiserver's max-in-flight limit: at most N read-only and M mutating requests are served at
// once; one more is answered 429 TooManyRequests with Retry-After: 1, before any work is done for
// it. Long-running requests (watches) are not counted, nor are members of system:masters (so an
// administrator can still act on an overloaded server) or health probes. Zero turns a limit off.
//
// Every identity the server admits, a bootstrap-token holder included, can keep requests open
// (a slow request body, a list read slowly, a write waiting for its commit), up to 1,000 per HTTP/2
// connection: this bounds what all of them together hold in the server's memory. So that one
// identity holding requests open cannot take every place and lock the others out (the agents, the
// hub's controllers), one user holds at most half of each limit; the rest stays for everyone else.

import type { ServerResponse } from 'node:http';
import type { UserInfo } from '../pipeline.js';
import { errors, type ApiError } from './errors.js';

export interface InflightLimits {
  /** Read-only requests served at once (get, list, and the non-resource ones); 0 = no limit. */
  maxRequestsInflight: number;
  /** Mutating requests served at once (create, update, patch, delete, ...); 0 = no limit. */
  maxMutatingRequestsInflight: number;
}

/** kube-apiserver's defaults. */
export const DEFAULT_INFLIGHT_LIMITS: Readonly<InflightLimits> = { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 };

const EXEMPT_GROUP = 'system:masters';
const READ_ONLY_VERBS: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

export interface InflightLimiter {
  /**
   * Counts `res`'s request until its response closes, or returns the 429 to answer with. `verb` is
   * the request's Kubernetes verb (non-resource requests: get, post, ...).
   */
  admit(verb: string, user: UserInfo, res: ServerResponse): ApiError | undefined;
  /** Requests counted now, by kind. */
  inflight(): { readOnly: number; mutating: number };
}

export function createInflightLimiter(limits: Readonly<InflightLimits>): InflightLimiter {
  for (const [k, v] of Object.entries(limits)) {
    if (!Number.isSafeInteger(v) || v < 0) throw new TypeError(`${k} must be a non-negative integer, got ${String(v)}`);
  }
  let readOnly = 0;
  let mutating = 0;
  /** Places held per user and kind (`r:<user>` / `m:<user>`); entries leave at zero. */
  const byUser = new Map<string, number>();
  return {
    admit(verb, user, res) {
      if (verb === 'watch' || user.groups.includes(EXEMPT_GROUP)) return undefined;
      const isMutating = !READ_ONLY_VERBS.has(verb);
      const cap = isMutating ? limits.maxMutatingRequestsInflight : limits.maxRequestsInflight;
      const current = isMutating ? mutating : readOnly;
      const userKey = `${isMutating ? 'm' : 'r'}:${user.username}`;
      const held = byUser.get(userKey) ?? 0;
      if (cap > 0 && (current >= cap || held >= Math.ceil(cap / 2))) return errors.tooManyRequests();
      if (isMutating) mutating++;
      else readOnly++;
      byUser.set(userKey, held + 1);
      // 'close' fires once for every response: when it has been sent, or when the client went away.
      res.once('close', () => {
        if (isMutating) mutating--;
        else readOnly--;
        const left = (byUser.get(userKey) ?? 1) - 1;
        if (left > 0) byUser.set(userKey, left);
        else byUser.delete(userKey);
      });
      return undefined;
    },
    inflight: () => ({ readOnly, mutating }),
  };
}
