// Which of the offered media types an Accept header prefers. Pure.

interface MediaRange {
  type: string;
  q: number;
}

function ranges(accept: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const raw of accept.split(',')) {
    const [type = '', ...params] = raw.split(';').map((s) => s.trim().toLowerCase());
    if (!type) continue;
    let q = 1;
    for (const p of params) if (p.startsWith('q=')) q = Number(p.slice(2));
    if (Number.isFinite(q) && q > 0) out.push({ type, q });
  }
  // A stable sort keeps the client's order among equal weights.
  return out.sort((a, b) => b.q - a.q);
}

function matches(range: string, offered: string): boolean {
  if (range === '*/*' || range === offered) return true;
  return range.endsWith('/*') && offered.startsWith(range.slice(0, -1));
}

/**
 * The first offered type the client accepts, by its preference; an absent or empty header accepts
 * the first offered type; undefined when nothing offered is acceptable (406).
 */
export function pickMediaType(accept: string | undefined, offered: readonly string[]): string | undefined {
  if (!accept || accept.trim() === '') return offered[0];
  for (const r of ranges(accept)) {
    const hit = offered.find((o) => matches(r.type, o));
    if (hit) return hit;
  }
  return undefined;
}
