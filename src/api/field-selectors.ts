// Field selectors: the `fieldSelector=` grammar (equality on a resource's selectable fields, with
// `\`, `,` and `=` escaped), parsed with kube-apiserver's error texts, and matching against the
// field values of an object. Pure; which fields a kind offers is the API server's business.

import { SelectorParseError } from './selector-error.js';

interface FieldRequirement {
  field: string;
  operator: 'Equals' | 'NotEquals';
  value: string;
}

export interface FieldSelector {
  requirements: FieldRequirement[];
}

function splitUnescaped(s: string, sep: string): string[] {
  const parts: string[] = [];
  let cur = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (c === '\\' && i + 1 < s.length) {
      cur += c + (s[i + 1] as string);
      i++;
    } else if (c === sep) {
      parts.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  parts.push(cur);
  return parts;
}

function unescapeFieldValue(v: string): string {
  let out = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i] as string;
    if (c === '\\') {
      const n = v[i + 1];
      if (n === '\\' || n === ',' || n === '=') {
        out += n;
        i++;
        continue;
      }
      throw new SelectorParseError(`invalid field selector: invalid escape sequence: \\${n ?? ''}`);
    }
    if (c === ',' || c === '=') throw new SelectorParseError(`invalid field selector: unescaped character in value: ${c}`);
    out += c;
  }
  return out;
}

/** Kinds that select on metadata only get kube-apiserver's generic wording; the others its per-kind one. */
function unsupportedFieldMessage(field: string, supported: Set<string>): string {
  const metadataOnly = [...supported].every((f) => f === 'metadata.name' || f === 'metadata.namespace');
  return metadataOnly ? `"${field}" is not a known field selector: only "metadata.name", "metadata.namespace"` : `field label not supported: ${field}`;
}

/**
 * Parses a `fieldSelector=` query value. `supportedFields` are the field labels the resource
 * allows; any other field throws `field label not supported: <f>`.
 */
export function parseFieldSelector(s: string, supportedFields: Iterable<string>): FieldSelector {
  const supported = new Set(supportedFields);
  const requirements: FieldRequirement[] = [];
  for (const term of splitUnescaped(s, ',').sort()) {
    if (term === '') continue;
    const m = /^(.*?)(!=|==|=)(.*)$/s.exec(term);
    if (!m) throw new SelectorParseError(`invalid selector: '${s}'; can't understand '${term}'`);
    const [, field, op, raw] = m as unknown as [string, string, string, string];
    const value = unescapeFieldValue(raw);
    if (!supported.has(field)) throw new SelectorParseError(unsupportedFieldMessage(field, supported));
    requirements.push({ field, operator: op === '!=' ? 'NotEquals' : 'Equals', value });
  }
  return { requirements };
}

/** Whether an object's selectable field values satisfy the selector (absent field = ""). */
export function matchesFields(sel: FieldSelector, fieldValues: Record<string, string>): boolean {
  return sel.requirements.every((r) => {
    const v = fieldValues[r.field] ?? '';
    return r.operator === 'Equals' ? v === r.value : v !== r.value;
  });
}

/** Escapes a value for use inside a field selector (`\`, `,`, `=`). */
export function escapeFieldValue(v: string): string {
  return v.replace(/[\\,=]/g, (c) => `\\${c}`);
}
