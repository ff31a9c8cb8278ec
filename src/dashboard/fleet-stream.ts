// One live view of the fleet for one user: informers (list, then watch) on ManagedClusters, agent
// CSRs, cluster leases and ManagedClusterSets, all through the user's own client, and a FleetState
// rebuilt shortly after each change. A kind the user may not read shows as an error line; the rest
// still streams.

import type { ManagedCluster, ManagedClusterSet } from '../api/cluster.js';
import { labels, names } from '../api/constants.js';
import type { CertificateSigningRequest, Lease } from '../api/core.js';
import type { KubeObject } from '../api/meta.js';
import { createInformer } from '../client/informer.js';
import { resourceTypes } from '../client/resource-types.js';
import type { Informer, KubeClient, ResourceType } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import { appendPoint, buildFleetState, countFleet, seedHistory } from './fleet-view.js';
import type { ChartPoint, FleetState } from './model.js';

export interface FleetStreamOptions {
  client: KubeClient;
  user: string;
  clock: Clock;
  signal: AbortSignal;
  /** Called with every new state (coalesced: at most one per `debounceMs`). */
  onState(state: FleetState): void;
  debounceMs?: number;
}

export function startFleetStream(o: FleetStreamOptions): void {
  const errors = new Map<string, string>();
  const observed = new Map<string, string>();
  let history: ChartPoint[] | undefined;
  let timer: NodeJS.Timeout | undefined;
  const debounceMs = o.debounceMs ?? 50;

  const watch = <T extends KubeObject>(type: ResourceType, opts: { fieldSelector?: string; labelSelector?: string } = {}): Informer<T> => {
    const inf = createInformer<T>(o.client.resource<T>(type), {
      ...opts,
      clock: o.clock,
      backoff: { initialMs: 1000, maxMs: 10_000 },
      onEvent: (e) => {
        if (e.type === 'failure') errors.set(type.resource, `cannot read ${type.resource}: ${errorMessage(e.err)}`);
        else if (e.type === 'listed') errors.delete(type.resource);
        else return;
        schedule();
      },
    });
    inf.addHandlers({ onAdd: schedule, onUpdate: schedule, onDelete: schedule });
    return inf;
  };

  const clusters = watch<ManagedCluster>(resourceTypes.managedClusters);
  const csrs = watch<CertificateSigningRequest>(resourceTypes.certificateSigningRequests, { labelSelector: labels.clusterName });
  const leases = watch<Lease>(resourceTypes.leases, { fieldSelector: `metadata.name=${names.clusterLease}` });
  const sets = watch<ManagedClusterSet>(resourceTypes.managedClusterSets);
  // The API keeps no signing time: remember when a certificate was first seen on a CSR.
  csrs.addHandlers({
    onUpdate: (prev, next) => {
      if (!prev.status?.certificate && next.status?.certificate) observed.set(next.metadata.name ?? '', new Date(o.clock.now()).toISOString());
    },
  });

  function emit(): void {
    timer = undefined;
    if (o.signal.aborted) return;
    // Nothing to show before the clusters are known (or known to be unreadable).
    if (!clusters.hasSynced() && !errors.has(resourceTypes.managedClusters.resource)) return;
    const now = o.clock.now();
    const cs = clusters.lister.list();
    history = history === undefined ? seedHistory(cs, now) : appendPoint(history, countFleet(cs, now));
    o.onState(buildFleetState({
      objs: { clusters: cs, csrs: csrs.lister.list(), leases: leases.lister.list(), sets: sets.lister.list() },
      observed,
      history,
      now,
      user: o.user,
      errors: [...errors.values()],
    }));
  }

  function schedule(): void {
    if (timer === undefined && !o.signal.aborted) timer = setTimeout(emit, debounceMs);
  }

  o.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  for (const inf of [clusters, csrs, leases, sets] as Informer<KubeObject>[]) inf.start(o.signal);
  // A fleet with no cluster yet still gets its (empty) first state once listed.
  void clusters.waitForSync(o.signal).then(schedule, () => undefined);
}
