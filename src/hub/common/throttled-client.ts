// A KubeClient wrapper that spaces API requests with a token bucket, as client-go's QPS and Burst do
// (`--kube-api-qps`, `--kube-api-burst`): at most `burst` at once, then `qps` per second. Every
// request takes a token before it is sent, watches included.

import type { KubeObject, WatchEvent } from '../../api/meta.js';
import { bucketRateLimiter } from '../../client/rate-limiter.js';
import type { KubeClient, ResourceClient, ResourceType } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';

export interface ThrottleOptions {
  qps: number;
  burst: number;
  clock: Clock;
}

export function throttledClient(inner: KubeClient, opts: ThrottleOptions): KubeClient {
  const bucket = bucketRateLimiter({ qps: opts.qps, burst: opts.burst, now: () => opts.clock.now() });
  const take = async (signal: AbortSignal | undefined): Promise<void> => {
    const delay = bucket.when('');
    if (delay > 0) await opts.clock.sleep(delay, signal);
  };
  const after = <R>(signal: AbortSignal | undefined, call: () => Promise<R>): Promise<R> => take(signal).then(call);
  const wrap = <T extends KubeObject>(rc: ResourceClient<T>): ResourceClient<T> => ({
    type: rc.type,
    namespace: rc.namespace,
    get: (n, o) => after(o?.signal, () => rc.get(n, o)),
    list: (o) => after(o?.signal, () => rc.list(o)),
    create: (obj, o) => after(o?.signal, () => rc.create(obj, o)),
    update: (obj, o) => after(o?.signal, () => rc.update(obj, o)),
    updateStatus: (obj, o) => after(o?.signal, () => rc.updateStatus(obj, o)),
    updateSubresource: (obj, sub, o) => after(o?.signal, () => rc.updateSubresource(obj, sub, o)),
    patch: (n, t, p, o) => after(o?.signal, () => rc.patch(n, t, p, o)),
    delete: (n, o) => after(o?.signal, () => rc.delete(n, o)),
    watch: (o) => ({
      async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
        await take(o?.signal);
        yield* rc.watch(o);
      },
    }),
  });
  return {
    get server() {
      return inner.server;
    },
    resource: <T extends KubeObject = KubeObject>(type: ResourceType, namespace?: string) => wrap(inner.resource<T>(type, namespace)),
    request: (method, path, body, o) => after(o?.signal, () => inner.request(method, path, body, o)),
    probe: (path, o) => after(o?.signal, () => inner.probe(path, o)),
    ...(inner.newest ? { newest: inner.newest.bind(inner) } : {}),
    close: () => inner.close(),
  };
}
