// The JSON Patch (RFC 6902) a mutating webhook answers with: the operations that turn the object
// kube-apiserver sent into the mutated one. Objects are compared key by key, so a patch touches
// only what admission changed; arrays of equal length element by element, others are replaced.

export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace';
  path: string;
  value?: unknown;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One reference token of a JSON Pointer (RFC 6901): `~` and `/` escaped. */
const token = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined);
    const kb = Object.keys(b).filter((k) => b[k] !== undefined);
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
  }
  return false;
}

/** The operations that turn `before` into `after` (both plain JSON values). */
export function jsonPatchBetween(before: unknown, after: unknown, path = ''): JsonPatchOperation[] {
  if (sameJson(before, after)) return [];
  if (isRecord(before) && isRecord(after)) {
    const ops: JsonPatchOperation[] = [];
    for (const key of Object.keys(before)) {
      if (before[key] !== undefined && (!Object.hasOwn(after, key) || after[key] === undefined)) ops.push({ op: 'remove', path: `${path}/${token(key)}` });
    }
    for (const [key, value] of Object.entries(after)) {
      if (value === undefined) continue;
      const p = `${path}/${token(key)}`;
      if (!Object.hasOwn(before, key) || before[key] === undefined) ops.push({ op: 'add', path: p, value });
      else ops.push(...jsonPatchBetween(before[key], value, p));
    }
    return ops;
  }
  if (Array.isArray(before) && Array.isArray(after) && before.length === after.length) {
    return after.flatMap((v, i) => jsonPatchBetween(before[i], v, `${path}/${i}`));
  }
  return [{ op: 'replace', path, value: after }];
}
