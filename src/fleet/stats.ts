// Small statistics over samples: nearest-rank quantiles and a bounded reservoir, so that 10,000
// agents renewing leases for an hour keep a fixed amount of memory.

/** Nearest-rank quantile of ascending `sorted`; NaN when empty. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Keeps a uniform sample of at most `capacity` values (Vitter's algorithm R). */
export class Reservoir {
  private readonly values: number[] = [];
  private seen = 0;
  constructor(
    private readonly capacity: number,
    private readonly random: () => number = Math.random,
  ) {}

  add(v: number): void {
    this.seen++;
    if (this.values.length < this.capacity) {
      this.values.push(v);
      return;
    }
    const i = Math.floor(this.random() * this.seen);
    if (i < this.capacity) this.values[i] = v;
  }

  /**
   * Adds `values`, a uniform sample of `seen` values observed elsewhere (a worker process), as if
   * all `seen` had been added: each value stands for seen / values.length of them. With nothing
   * dropped (values.length === seen) this is exactly add() of each.
   */
  merge(values: readonly number[], seen: number): void {
    if (!Number.isInteger(seen) || seen < values.length) throw new Error(`a sample of ${values.length} values cannot stand for ${seen}`);
    const start = this.seen;
    const weight = values.length > 0 ? seen / values.length : 0;
    values.forEach((v, k) => {
      this.seen = start + Math.round((k + 1) * weight);
      if (this.values.length < this.capacity) {
        this.values.push(v);
        return;
      }
      const i = Math.floor(this.random() * this.seen);
      if (i < this.capacity) this.values[i] = v;
    });
    this.seen = start + seen;
  }

  /** Values added so far (not only those kept). */
  count(): number {
    return this.seen;
  }

  sorted(): number[] {
    return [...this.values].sort((a, b) => a - b);
  }

  clear(): void {
    this.values.length = 0;
    this.seen = 0;
  }
}

export interface PerClusterCounts {
  total: number;
  /** The most any one cluster made. */
  max: number;
  /** total / clusters (0 for no clusters). */
  mean: number;
}

/** Growth of per-cluster counters between two snapshots, over `members` (clusters without counts made none). */
export function countsBetween(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>, members: Iterable<string>): PerClusterCounts {
  let total = 0;
  let max = 0;
  let n = 0;
  for (const m of members) {
    const d = Math.max(0, (after.get(m) ?? 0) - (before.get(m) ?? 0));
    total += d;
    max = Math.max(max, d);
    n++;
  }
  return { total, max, mean: n > 0 ? total / n : 0 };
}
