// Minimal JSONPath for printer columns: `.a.b`, `[n]`, `[*]`, `[?(@.k=="v")]`. Pure.

import { isPlainObject } from '../../util/merge-patch.js';

type Step = { kind: 'field'; name: string } | { kind: 'index'; index: number } | { kind: 'all' } | { kind: 'filter'; path: string[]; value: string };

export function parseJsonPath(expr: string): Step[] {
  let s = expr.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1);
  if (s.startsWith('$')) s = s.slice(1);
  const steps: Step[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '.') {
      i++;
      let j = i;
      while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
      if (j > i) steps.push({ kind: 'field', name: s.slice(i, j) });
      i = j;
    } else if (c === '[') {
      const end = s.indexOf(']', i);
      if (end < 0) throw new Error(`unterminated [ in ${expr}`);
      const inner = s.slice(i + 1, end).trim();
      if (inner === '*') steps.push({ kind: 'all' });
      else if (/^-?\d+$/.test(inner)) steps.push({ kind: 'index', index: Number(inner) });
      else {
        // Segment characters exclude '.', so each dot starts exactly one segment: with '.' allowed
        // the nested repetition could split `.a.a.a...` every possible way, exponential on a miss.
        const m = /^\?\(@((?:\.[^=!<>\s.]+)+)\s*==\s*(?:"([^"]*)"|'([^']*)'|([^)\s]+))\)$/.exec(inner);
        if (m) steps.push({ kind: 'filter', path: (m[1] as string).slice(1).split('.'), value: m[2] ?? m[3] ?? m[4] ?? '' });
        else if (/^'[^']*'$|^"[^"]*"$/.test(inner)) steps.push({ kind: 'field', name: inner.slice(1, -1) });
        else throw new Error(`unsupported JSONPath segment [${inner}]`);
      }
      i = end + 1;
    } else {
      let j = i;
      while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
      steps.push({ kind: 'field', name: s.slice(i, j) });
      i = j;
    }
  }
  return steps;
}

function get(v: unknown, path: string[]): unknown {
  let cur = v;
  for (const p of path) {
    if (typeof cur !== 'object' || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** All values the path selects. */
export function evalJsonPath(root: unknown, steps: Step[]): unknown[] {
  let cur: unknown[] = [root];
  for (const st of steps) {
    const next: unknown[] = [];
    for (const v of cur) {
      if (st.kind === 'field') {
        if (isPlainObject(v)) {
          const x = v[st.name];
          if (x !== undefined) next.push(x);
        }
      } else if (!Array.isArray(v)) {
        continue;
      } else if (st.kind === 'index') {
        const x = v[st.index < 0 ? v.length + st.index : st.index];
        if (x !== undefined) next.push(x);
      } else if (st.kind === 'all') {
        next.push(...v);
      } else {
        for (const item of v) {
          const x = get(item, st.path);
          if (x !== undefined && String(x) === st.value) next.push(item);
        }
      }
    }
    cur = next;
  }
  return cur;
}
