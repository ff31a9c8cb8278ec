// The fleet as the hub sees it: per cluster, whether its ManagedCluster is Joined and Available,
// fed from a watch. Pure state with no I/O, so the counting rules are tested without a hub.

import type { ManagedCluster } from '../api/cluster.js';
import { findCondition } from '../api/conditions.js';
import { conditionTypes } from '../api/constants.js';

type AvailableStatus = 'True' | 'False' | 'Unknown' | 'absent';

interface ClusterState {
  joined: boolean;
  available: AvailableStatus;
  leaseDurationSeconds: number | undefined;
}

export interface BoardCounts {
  /** ManagedClusters of the fleet that exist on the hub. */
  registered: number;
  joined: number;
  /** Joined and Available=True. */
  available: number;
  /** Available=Unknown (the hub saw no lease renewal for 5 lease durations). */
  unknown: number;
}

export class ClusterBoard {
  private readonly states = new Map<string, ClusterState>();
  private unknownMarks = 0;
  private readonly firstReady = new Map<string, number>();
  private readonly listeners = new Set<() => void>();
  private relistedAt: number | undefined;

  constructor(private readonly members: ReadonlySet<string>) {}

  /** Records a ManagedCluster seen at time `t` (ms); ignores clusters outside the fleet. */
  update(mc: ManagedCluster, t: number): void {
    const name = mc.metadata.name ?? '';
    if (!this.members.has(name)) return;
    const conds = mc.status?.conditions;
    const next: ClusterState = {
      joined: findCondition(conds, conditionTypes.joined)?.status === 'True',
      available: (findCondition(conds, conditionTypes.available)?.status as AvailableStatus | undefined) ?? 'absent',
      leaseDurationSeconds: mc.spec?.leaseDurationSeconds,
    };
    const prev = this.states.get(name);
    if (next.available === 'Unknown' && prev?.available !== 'Unknown') this.unknownMarks++;
    this.states.set(name, next);
    if (next.joined && next.available === 'True' && !this.firstReady.has(name)) this.firstReady.set(name, t);
    for (const l of this.listeners) l();
  }

  remove(name: string): void {
    if (this.states.delete(name)) for (const l of this.listeners) l();
  }

  /** A full relist: clusters missing from `items` are gone. */
  replace(items: readonly ManagedCluster[], t: number): void {
    const seen = new Set(items.map((i) => i.metadata.name ?? ''));
    for (const name of [...this.states.keys()]) if (!seen.has(name)) this.states.delete(name);
    for (const mc of items) this.update(mc, t);
    this.relistedAt = t;
    for (const l of this.listeners) l();
  }

  /** Time of the last full relist (ms): the board is known current from then on. */
  lastRelistMs(): number | undefined {
    return this.relistedAt;
  }

  counts(): BoardCounts {
    let joined = 0;
    let available = 0;
    let unknown = 0;
    for (const s of this.states.values()) {
      if (s.joined) joined++;
      if (s.joined && s.available === 'True') available++;
      if (s.available === 'Unknown') unknown++;
    }
    return { registered: this.states.size, joined, available, unknown };
  }

  leaseDurationOf(name: string): number | undefined {
    return this.states.get(name)?.leaseDurationSeconds;
  }

  /** Transitions to Available=Unknown seen so far. */
  unknownTransitions(): number {
    return this.unknownMarks;
  }

  /** When each cluster was first seen Joined and Available (ms). */
  firstReadyTimes(): ReadonlyMap<string, number> {
    return this.firstReady;
  }

  /** Resolves once `predicate` holds on the counts, or rejects when `signal` aborts. */
  until(predicate: (c: BoardCounts) => boolean, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!predicate(this.counts())) return;
        done();
        resolve();
      };
      const onAbort = (): void => {
        done();
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      };
      const done = (): void => {
        this.listeners.delete(check);
        signal.removeEventListener('abort', onAbort);
      };
      if (signal.aborted) return onAbort();
      this.listeners.add(check);
      signal.addEventListener('abort', onAbort, { once: true });
      check();
    });
  }
}
