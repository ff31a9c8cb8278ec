// Small helpers the watch-delivery phases share: times comparable across processes and the
// percentiles they print.

/** Epoch milliseconds with a fraction, comparable with another process's (same clock). */
export const epochNow = (): number => performance.timeOrigin + performance.now();

/** The p-th percentile (nearest rank) of xs; NaN for none. */
export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : (s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number);
}

export const round2 = (x: number): number => Math.round(x * 100) / 100;
