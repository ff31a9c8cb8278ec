// Nesting limit of request documents. Decoding JSON is iterative, but much of what follows walks
// objects recursively (structuredClone, pruning, validation, patches) and would overflow the stack
// on a document nested a few thousand levels deep. Both checks below are iterative, so they run
// before any recursive code sees the document. A patch can at most double the depth of a stored
// object, which stays far below the recursion limit.

/** Deepest nesting of arrays and objects accepted in a request document or a stored object. */
export const MAX_NESTING_DEPTH = 512;

/** The text of the error, worded after Go's JSON decoder. */
export function nestingDepthMessage(max = MAX_NESTING_DEPTH): string {
  return `exceeded max depth of ${max}`;
}

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether JSON text nests arrays/objects deeper than `max` (brackets inside strings do not count). */
export function jsonTextTooDeep(text: string, max = MAX_NESTING_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/** Whether a decoded value nests arrays/objects deeper than `max`; walks with an explicit stack. */
export function valueTooDeep(value: unknown, max = MAX_NESTING_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 1]];
  // YAML aliases can share a node, or even make a cycle: a node is walked again only when reached
  // deeper than before, so a cycle ends as too deep and sharing costs at most `max` walks per node.
  const deepest = new Map<object, number>();
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (typeof v !== 'object' || v === null) continue;
    if (depth > max) return true;
    if ((deepest.get(v) ?? 0) >= depth) continue;
    deepest.set(v, depth);
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, depth + 1]);
  }
  return false;
}
