// Owner uid → the store keys of the objects naming it in their owner references, kept up to date
// from store events, so that a deleted owner's dependents are found without a scan.

import type { OwnerRef } from './owner-references.js';

export class OwnerIndex {
  readonly #dependents = new Map<string, Set<string>>();
  readonly #ownersOf = new Map<string, string[]>();

  /** Records the owners `key` names now (none: forgets it). */
  set(key: string, refs: OwnerRef[]): void {
    this.remove(key);
    if (refs.length === 0) return;
    const uids = [...new Set(refs.map((r) => r.uid))];
    this.#ownersOf.set(key, uids);
    for (const uid of uids) {
      let deps = this.#dependents.get(uid);
      if (!deps) this.#dependents.set(uid, (deps = new Set()));
      deps.add(key);
    }
  }

  remove(key: string): void {
    const uids = this.#ownersOf.get(key);
    if (!uids) return;
    this.#ownersOf.delete(key);
    for (const uid of uids) {
      const deps = this.#dependents.get(uid);
      deps?.delete(key);
      if (deps?.size === 0) this.#dependents.delete(uid);
    }
  }

  /** Keys of the objects that name `uid` as an owner (a copy). */
  dependentsOf(uid: string): string[] {
    return [...(this.#dependents.get(uid) ?? [])];
  }

  hasDependents(uid: string): boolean {
    return this.#dependents.has(uid);
  }

  /** Number of objects with owner references. */
  get size(): number {
    return this.#ownersOf.size;
  }
}
