// One request's abort signal: the caller's signal (often a controller's, alive as long as the
// process) joined with the request's timeout.
//
// Not AbortSignal.any: on Node 20 every signal it derives stays referenced from its source until the
// source itself is collected (about 60 bytes a request, held for an agent's whole life). Not one
// 'abort' listener per request on the caller's signal either: a controller with more than ten
// requests in flight would trip Node's possible-leak warning. Each caller's signal gets a single
// listener that aborts the requests in flight under it, and a finished request leaves that set.

import { setIoTimeout, type IoTimeout } from '../util/io-timeout.js';

const inFlight = new WeakMap<AbortSignal, Set<AbortController>>();

export interface RequestSignal {
  readonly signal: AbortSignal | undefined;
  /** The request is over: stop following the caller's signal and the timeout. Safe to call twice. */
  release(): void;
}

function followersOf(parent: AbortSignal): Set<AbortController> {
  let set = inFlight.get(parent);
  if (!set) {
    const followers = new Set<AbortController>();
    inFlight.set(parent, followers);
    parent.addEventListener('abort', () => {
      for (const c of followers) c.abort(parent.reason);
      followers.clear();
    }, { once: true });
    set = followers;
  }
  return set;
}

export function requestSignal(parent: AbortSignal | undefined, timeoutMs: number): RequestSignal {
  if (!parent && timeoutMs <= 0) return { signal: undefined, release: () => undefined };
  const ac = new AbortController();
  let followers: Set<AbortController> | undefined;
  if (parent?.aborted) ac.abort(parent.reason);
  else if (parent) (followers = followersOf(parent)).add(ac);
  let timer: IoTimeout | undefined;
  // An answer that arrived while the process was stalled is read before the timeout can abort it.
  if (timeoutMs > 0 && !ac.signal.aborted) timer = setIoTimeout(() => ac.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), timeoutMs);
  return {
    signal: ac.signal,
    release() {
      timer?.clear();
      followers?.delete(ac);
    },
  };
}
