// Delegated authentication and authorization of requests to a component's own endpoints (its
// /metrics), as kube-apiserver's delegating filters and controller-runtime's metrics filter do: the
// bearer token is checked with a TokenReview, then the user's right to `get` the non-resource path
// with a SubjectAccessReview, both against the cluster the component runs in. Answers are cached
// briefly (allowed and denied alike) so a scraper every few seconds costs no API requests.

import { errorMessage } from '../util/errors.js';
import { realClock, type Clock } from '../util/clock.js';
import type { KubeClient } from './types.js';

interface DelegatedAuthDecision {
  /** 200 allowed, 401 no or unknown credentials, 403 authenticated but not allowed. */
  code: 200 | 401 | 403;
  message: string;
  user?: string;
}

export interface DelegatedAuthorizer {
  /** Decides for the `Authorization` header value of a request to `path` with `verb`. */
  check(authorization: string | undefined, path: string, verb: string, signal?: AbortSignal): Promise<DelegatedAuthDecision>;
}

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

interface AccessReviewStatus {
  allowed?: boolean;
  denied?: boolean;
  reason?: string;
}

export interface DelegatedAuthOptions {
  client: KubeClient;
  /** How long an answer is reused (default 10 s, kube-apiserver's delegating cache TTL). */
  cacheTtlMs?: number;
  clock?: Clock;
}

const MAX_CACHE = 1024;

export function createDelegatedAuthorizer(o: DelegatedAuthOptions): DelegatedAuthorizer {
  const clock = o.clock ?? realClock;
  const ttl = o.cacheTtlMs ?? 10_000;
  const cache = new Map<string, { at: number; decision: DelegatedAuthDecision }>();

  // A review that failed (network, server error) is not cached: the next request asks again.
  const unreviewed = new WeakSet<DelegatedAuthDecision>();
  const decide = async (token: string, path: string, verb: string, signal?: AbortSignal): Promise<DelegatedAuthDecision> => {
    let review: { status?: TokenReviewStatus };
    try {
      review = await o.client.request('POST', '/apis/authentication.k8s.io/v1/tokenreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } }, { signal });
    } catch (err) {
      const d: DelegatedAuthDecision = { code: 401, message: `Unauthorized: the token could not be reviewed: ${errorMessage(err)}` };
      unreviewed.add(d);
      return d;
    }
    const user = review.status?.user;
    if (review.status?.authenticated !== true || user?.username === undefined) return { code: 401, message: 'Unauthorized' };
    let access: { status?: AccessReviewStatus };
    try {
      access = await o.client.request(
        'POST',
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: user.username, ...(user.uid ? { uid: user.uid } : {}), groups: user.groups ?? [], ...(user.extra ? { extra: user.extra } : {}), nonResourceAttributes: { path, verb } },
        },
        { signal },
      );
    } catch (err) {
      const d: DelegatedAuthDecision = { code: 403, message: `Forbidden: the access could not be reviewed: ${errorMessage(err)}`, user: user.username };
      unreviewed.add(d);
      return d;
    }
    if (access.status?.allowed === true) return { code: 200, message: 'ok', user: user.username };
    return { code: 403, message: `Forbidden: user "${user.username}" cannot ${verb} path "${path}"${access.status?.reason ? `: ${access.status.reason}` : ''}`, user: user.username };
  };

  return {
    async check(authorization, path, verb, signal) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
      if (!m) return { code: 401, message: 'Unauthorized: a bearer token is required' };
      const token = m[1]!;
      const key = `${verb}\u0000${path}\u0000${token}`;
      const now = clock.now();
      const hit = cache.get(key);
      if (hit && now - hit.at < ttl) return hit.decision;
      const decision = await decide(token, path, verb, signal);
      if (unreviewed.has(decision)) return decision;
      if (cache.size >= MAX_CACHE) {
        for (const [k, v] of cache) if (now - v.at >= ttl) cache.delete(k);
        if (cache.size >= MAX_CACHE) cache.clear();
      }
      cache.set(key, { at: now, decision });
      return decision;
    },
  };
}
