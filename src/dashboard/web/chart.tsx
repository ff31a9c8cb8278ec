// Joins and availability over time as step lines, drawn in SVG by hand (no chart library: three
// series of a few hundred points need none).
import type { ChartPoint } from '../model.js';

const W = 640;
const H = 180;
const PAD = { left: 34, right: 12, top: 12, bottom: 26 };

type Series = 'total' | 'joined' | 'available';
const SERIES: { key: Series; label: string; color: string }[] = [
  { key: 'total', label: 'clusters', color: '#8b98a9' },
  { key: 'joined', label: 'joined', color: '#1f6feb' },
  { key: 'available', label: 'available', color: '#1a7f37' },
];

function stepPath(points: ChartPoint[], key: Series, x: (t: number) => number, y: (v: number) => number, end: number): string {
  let d = '';
  points.forEach((p, i) => {
    d += i === 0 ? `M${x(p.t)},${y(p[key])}` : `H${x(p.t)}V${y(p[key])}`;
  });
  return points.length ? `${d}H${x(end)}` : '';
}

export function FleetChart({ points, now }: { points: ChartPoint[]; now: number }) {
  if (points.length === 0) return <p class="muted">No cluster yet.</p>;
  const start = Math.min(points[0]!.t, now - 60_000);
  const span = Math.max(1, now - start);
  const max = Math.max(1, ...points.map((p) => p.total));
  const x = (t: number): number => PAD.left + ((t - start) / span) * (W - PAD.left - PAD.right);
  const y = (v: number): number => H - PAD.bottom - (v / max) * (H - PAD.top - PAD.bottom);
  const ticks = [0, Math.ceil(max / 2), max].filter((v, i, a) => a.indexOf(v) === i);
  const time = (t: number): string => new Date(t).toLocaleTimeString();
  return (
    <svg id="fleet-chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-label="joined and available clusters over time">
      {ticks.map((v) => (
        <g key={v}>
          <line x1={PAD.left} x2={W - PAD.right} y1={y(v)} y2={y(v)} class="grid" />
          <text x={PAD.left - 6} y={y(v) + 4} text-anchor="end" class="axis">{v}</text>
        </g>
      ))}
      <text x={PAD.left} y={H - 6} class="axis">{time(start)}</text>
      <text x={W - PAD.right} y={H - 6} text-anchor="end" class="axis">{time(now)}</text>
      {SERIES.map((s) => (
        <path key={s.key} d={stepPath(points, s.key, x, y, now)} fill="none" stroke={s.color} stroke-width={s.key === 'total' ? 1.5 : 2.5} stroke-dasharray={s.key === 'total' ? '4 3' : undefined} />
      ))}
      {SERIES.map((s, i) => (
        <g key={`l${s.key}`} transform={`translate(${PAD.left + 10 + i * 100},${PAD.top + 4})`}>
          <rect width="12" height="4" y="-4" fill={s.color} />
          <text x="16" y="0" class="axis">{s.label}</text>
        </g>
      ))}
    </svg>
  );
}
