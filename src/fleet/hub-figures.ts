// Figures read from the hub with its admin client: its write counter (the storage revision, which
// every write of any object advances by one), the CSRs it holds, and when each cluster lease was
// last renewed.

import type { Lease } from '../api/core.js';
import { names as wellKnownNames } from '../api/constants.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import type { Clock } from '../util/clock.js';

/** The hub's current storage revision: a list's resourceVersion is the revision it was read at. */
export async function hubRevision(admin: KubeClient, signal?: AbortSignal): Promise<number> {
  const list = await admin.resource(resourceTypes.namespaces).list({ limit: 1, ...(signal ? { signal } : {}) });
  const rv = Number(list.metadata?.resourceVersion);
  if (!Number.isSafeInteger(rv)) throw new Error(`the hub answered a list without a numeric resourceVersion: ${String(list.metadata?.resourceVersion)}`);
  return rv;
}

/**
 * How many CSRs the hub holds. A one-item page carries the count of the rest (remainingItemCount):
 * a whole list of thousands of CSRs, read while the hub is busiest (right after a restart), outlasted
 * the client's timeout. Pages of 500 when the server does not say.
 */
export async function csrCount(admin: KubeClient, signal?: AbortSignal): Promise<number> {
  const csrs = admin.resource(resourceTypes.certificateSigningRequests);
  const first = await csrs.list({ limit: 1, ...(signal ? { signal } : {}) });
  const remaining = first.metadata?.remainingItemCount;
  if (!first.metadata?.continue) return first.items.length;
  if (typeof remaining === 'number') return first.items.length + remaining;
  let count = first.items.length;
  let cont: string | undefined = first.metadata.continue;
  while (cont) {
    const page = await csrs.list({ limit: 500, continue: cont, ...(signal ? { signal } : {}) });
    count += page.items.length;
    cont = page.metadata?.continue || undefined;
  }
  return count;
}

/**
 * Records each member cluster's first lease renewal later than `afterMs` (spec.renewTime, epoch ms)
 * from a list and watch of the cluster leases, listing again after any break, until the signal
 * aborts. A watch rather than polled lists: thousands of leases listed every half second cost the
 * hub more than the recovery it is measuring.
 */
export function watchFirstRenewals(admin: KubeClient, members: ReadonlySet<string>, afterMs: number, firsts: Map<string, number>, clock: Clock, signal: AbortSignal): Promise<void> {
  const leases = admin.resource<Lease>(resourceTypes.leases);
  const fieldSelector = `metadata.name=${wellKnownNames.clusterLease}`;
  const note = (l: Lease): void => {
    const ns = l.metadata.namespace ?? '';
    const t = Date.parse(l.spec?.renewTime ?? '');
    if (members.has(ns) && Number.isFinite(t) && t > afterMs && !firsts.has(ns)) firsts.set(ns, t);
  };
  return (async () => {
    while (!signal.aborted) {
      try {
        const list = await leases.list({ fieldSelector, signal });
        list.items.forEach(note);
        for await (const ev of leases.watch({ fieldSelector, resourceVersion: list.metadata?.resourceVersion ?? '', allowWatchBookmarks: true, signal })) {
          if (ev.type === 'ADDED' || ev.type === 'MODIFIED') note(ev.object);
        }
      } catch {
        // The hub is still starting, or the watch broke: list again.
      }
      try {
        await clock.sleep(250, signal);
      } catch {
        return;
      }
    }
  })();
}
