// A KubeClient wrapper that reports every API call (verb + resource) — the hub's request metrics and
// the benchmark's "requests per cluster" come from here.

import type { KubeObject } from '../../api/meta.js';
import type { KubeClient, ResourceClient, ResourceType } from '../../client/types.js';

export type RequestObserver = (verb: string, resource: string) => void;

export function countingClient(inner: KubeClient, observe: RequestObserver): KubeClient {
  const wrap = <T extends KubeObject>(rc: ResourceClient<T>, type: ResourceType): ResourceClient<T> => {
    const r = type.resource;
    return {
      type: rc.type,
      namespace: rc.namespace,
      get: (n, o) => (observe('get', r), rc.get(n, o)),
      list: (o) => (observe('list', r), rc.list(o)),
      create: (obj, o) => (observe('create', r), rc.create(obj, o)),
      update: (obj, o) => (observe('update', r), rc.update(obj, o)),
      updateStatus: (obj, o) => (observe('update', `${r}/status`), rc.updateStatus(obj, o)),
      updateSubresource: (obj, sub, o) => (observe('update', `${r}/${sub}`), rc.updateSubresource(obj, sub, o)),
      patch: (n, t, p, o) => (observe('patch', o?.subresource ? `${r}/${o.subresource}` : r), rc.patch(n, t, p, o)),
      delete: (n, o) => (observe('delete', r), rc.delete(n, o)),
      watch: (o) => (observe('watch', r), rc.watch(o)),
    };
  };
  return {
    get server() {
      return inner.server;
    },
    resource: <T extends KubeObject = KubeObject>(type: ResourceType, namespace?: string) => wrap(inner.resource<T>(type, namespace), type),
    request: (method, path, body, opts) => {
      observe(method.toLowerCase(), path.split('?')[0] ?? path);
      return inner.request(method, path, body, opts);
    },
    probe: (path, opts) => inner.probe(path, opts),
    ...(inner.newest ? { newest: inner.newest.bind(inner) } : {}),
    close: () => inner.close(),
  };
}
