// One shared informer per (resource type, namespace, label selector, field selector), so that
// several controllers watching the same collection share one list+watch and one cache.

import type { KubeObject } from '../api/meta.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { createInformer, type InformerRuntimeOptions } from './informer.js';
import type { Informer, KubeClient, ResourceType } from './types.js';

export interface InformerFactoryOptions {
  log?: Logger;
  clock?: Clock;
  /** Default resync for informers created by this factory (0 = never). */
  resyncMs?: number;
  /** Cache objects without metadata.managedFields (see InformerOptions). */
  dropManagedFields?: boolean;
  /** Extra runtime options (backoff, watch timeout, page size) applied to every informer. */
  runtime?: Omit<InformerRuntimeOptions, 'labelSelector' | 'fieldSelector' | 'log' | 'clock' | 'resyncMs'>;
}

interface InformerFor {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

export interface InformerFactory {
  /** The shared informer for this collection and selectors (created on first use). */
  informerFor<T extends KubeObject = KubeObject>(type: ResourceType, opts?: InformerFor): Informer<T>;
  /** Starts every informer created so far, and any created later. */
  start(signal: AbortSignal): void;
  /** Resolves once every informer created so far has synced. */
  waitForSync(signal?: AbortSignal): Promise<void>;
}

export function createInformerFactory(client: KubeClient, opts: InformerFactoryOptions = {}): InformerFactory {
  const informers = new Map<string, Informer<KubeObject>>();
  let startedWith: AbortSignal | undefined;
  return {
    informerFor<T extends KubeObject = KubeObject>(type: ResourceType, f: InformerFor = {}): Informer<T> {
      const ns = type.namespaced ? (f.namespace ?? '') : '';
      const key = [type.group, type.version, type.resource, ns, f.labelSelector ?? '', f.fieldSelector ?? ''].join('|');
      let inf = informers.get(key);
      if (inf === undefined) {
        inf = createInformer<KubeObject>(client.resource(type, ns || undefined), {
          ...opts.runtime,
          ...(f.labelSelector ? { labelSelector: f.labelSelector } : {}),
          ...(f.fieldSelector ? { fieldSelector: f.fieldSelector } : {}),
          ...(opts.log ? { log: opts.log } : {}),
          ...(opts.clock ? { clock: opts.clock } : {}),
          resyncMs: opts.resyncMs ?? 0,
          dropManagedFields: opts.dropManagedFields ?? false,
        });
        informers.set(key, inf);
        if (startedWith) inf.start(startedWith);
      }
      return inf as unknown as Informer<T>;
    },
    start(signal) {
      startedWith = signal;
      for (const inf of informers.values()) inf.start(signal);
    },
    async waitForSync(signal) {
      await Promise.all([...informers.values()].map((i) => i.waitForSync(signal)));
    },
  };
}
