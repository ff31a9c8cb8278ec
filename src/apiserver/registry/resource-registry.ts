// The set of served resources, by group/version/resource. Built-ins are fixed; CRD-backed entries
// are replaced whenever a CRD changes (see crd-resources.ts). Discovery reads from here.

import type { ServedResource, VirtualResource } from './types.js';

export interface ResolvedResource {
  served: ServedResource;
  version: string;
}

export class ResourceRegistry {
  readonly #builtins: ServedResource[];
  readonly #virtual: VirtualResource[];
  /** CRD name → its served resource (only when established and names accepted). */
  readonly #custom = new Map<string, ServedResource>();
  #index = new Map<string, ServedResource>();
  #generation = 0;

  constructor(builtins: ServedResource[], virtual: VirtualResource[]) {
    this.#builtins = builtins;
    this.#virtual = virtual;
    this.#rebuild();
  }

  /** Bumped on every change; discovery caches key on it. */
  get generation(): number {
    return this.#generation;
  }

  setCustom(crdName: string, served: ServedResource | undefined): void {
    if (served) this.#custom.set(crdName, served);
    else this.#custom.delete(crdName);
    this.#rebuild();
  }

  getCustom(crdName: string): ServedResource | undefined {
    return this.#custom.get(crdName);
  }

  #rebuild(): void {
    const idx = new Map<string, ServedResource>();
    for (const r of [...this.#builtins, ...this.#custom.values()]) {
      for (const v of r.def.versions) idx.set(`${r.def.group}/${v}/${r.def.resource}`, r);
    }
    this.#index = idx;
    this.#generation++;
  }

  resolve(group: string, version: string, resource: string): ResolvedResource | undefined {
    const served = this.#index.get(`${group}/${version}/${resource}`);
    return served ? { served, version } : undefined;
  }

  virtual(group: string, version: string, resource: string): VirtualResource | undefined {
    return this.#virtual.find((v) => v.def.group === group && v.def.versions.includes(version) && v.def.resource === resource);
  }

  /** Every served resource (built-in first, then CRDs). */
  all(): ServedResource[] {
    return [...this.#builtins, ...this.#custom.values()];
  }

  virtuals(): VirtualResource[] {
    return this.#virtual;
  }

  /** Served resources sharing one storage location (core events and events.k8s.io events). */
  byStorage(storageGroup: string, storageResource: string): ServedResource[] {
    return this.all().filter((r) => r.storageGroup === storageGroup && r.storageResource === storageResource);
  }
}
