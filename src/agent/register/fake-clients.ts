// In-memory ResourceClient / Lister / Informer stand-ins for the register unit tests: they record
// every call as a verb so tests can assert the exact actions, like OCM's fake clientsets.

import { matchesLabels } from '../../api/label-selectors.js';
import type { KubeObject } from '../../api/meta.js';
import { ApiStatusError, statusFromCode } from '../../client/errors.js';
import type { Informer, InformerHandlers, Lister, ResourceClient, ResourceType } from '../../client/types.js';

export interface FakeResourceClient<T extends KubeObject> extends ResourceClient<T> {
  readonly actions: string[];
  readonly objects: Map<string, T>;
  /** Fail the next call of this verb with the given HTTP code. */
  failNext(verb: string, code: number): void;
}

export function fakeResourceClient<T extends KubeObject>(type: ResourceType, namespace?: string, initial: T[] = []): FakeResourceClient<T> {
  const objects = new Map<string, T>(initial.map((o) => [o.metadata.name ?? '', structuredClone(o)]));
  const actions: string[] = [];
  const failures = new Map<string, number>();
  let rv = 1;
  let seq = 0;
  const maybeFail = (verb: string, name: string): void => {
    actions.push(verb);
    const code = failures.get(verb);
    if (code !== undefined) {
      failures.delete(verb);
      throw new ApiStatusError(statusFromCode(code, `${verb} ${name} failed`));
    }
  };
  const notFound = (name: string): ApiStatusError =>
    new ApiStatusError({ ...statusFromCode(404, `${type.resource} "${name}" not found`), reason: 'NotFound' });
  const client: FakeResourceClient<T> = {
    type,
    namespace,
    actions,
    objects,
    failNext: (verb, code) => void failures.set(verb, code),
    async get(name) {
      maybeFail('get', name);
      const o = objects.get(name);
      if (!o) throw notFound(name);
      return structuredClone(o);
    },
    async list() {
      maybeFail('list', '');
      return { apiVersion: 'v1', kind: 'List', metadata: {}, items: [...objects.values()].map((o) => structuredClone(o)) };
    },
    async create(obj) {
      const name = obj.metadata.name ?? `${obj.metadata.generateName ?? ''}${String(++seq).padStart(5, '0')}`;
      maybeFail('create', name);
      const stored = structuredClone({ ...obj, metadata: { ...obj.metadata, name, resourceVersion: String(++rv) } });
      objects.set(name, stored);
      return structuredClone(stored);
    },
    async update(obj) {
      const name = obj.metadata.name ?? '';
      maybeFail('update', name);
      const stored = structuredClone({ ...obj, metadata: { ...obj.metadata, resourceVersion: String(++rv) } });
      objects.set(name, stored);
      return structuredClone(stored);
    },
    async updateStatus(obj) {
      return client.update(obj);
    },
    async updateSubresource(obj) {
      return client.update(obj);
    },
    async patch(name) {
      maybeFail('patch', name);
      const o = objects.get(name);
      if (!o) throw notFound(name);
      return structuredClone(o);
    },
    async delete(name) {
      maybeFail('delete', name);
      objects.delete(name);
    },
    watch() {
      throw new Error('fake client: watch is not supported');
    },
  };
  return client;
}

export function fakeLister<T extends KubeObject>(items: () => T[]): Lister<T> {
  return {
    get: (name) => items().find((o) => o.metadata.name === name),
    list: () => items(),
    size: () => items().length,
    count: (opts = {}) => items().filter((o) => (opts.namespace === undefined || o.metadata.namespace === opts.namespace) && (!opts.selector || matchesLabels(opts.selector, o.metadata.labels))).length,
  };
}

/** An informer whose handlers tests call by hand. */
export function fakeInformer<T extends KubeObject>(items: () => T[] = () => []): Informer<T> & { handlers: InformerHandlers<T>[] } {
  const handlers: InformerHandlers<T>[] = [];
  return {
    handlers,
    lister: fakeLister(items),
    addHandlers: (h) => void handlers.push(h),
    start: () => {},
    hasSynced: () => true,
    waitForSync: async () => {},
    state: () => 'watching',
  };
}
