// Who a write is recorded under in managedFields: the `fieldManager` query parameter, else the
// client's User-Agent up to its first slash (`kubectl-edit/v1.34.3 (linux/amd64) ...` gives
// `kubectl-edit`), as kube-apiserver names it.

import { errors, fieldErrors, type FieldError } from './errors.js';

const FIELD_MANAGER_MAX_BYTES = 128;

/** Printable as Go's unicode.IsPrint counts it: letters, marks, numbers, punctuation, symbols and the ASCII space. */
const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const GO_ESCAPES: Record<string, string> = { '\x07': '\\a', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\v': '\\v', '"': '\\"', '\\': '\\\\' };

/** A string quoted as Go's %q quotes it, as kube-apiserver's messages show values. */
function goQuote(s: string): string {
  let out = '';
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (GO_ESCAPES[ch]) out += GO_ESCAPES[ch];
    else if (PRINTABLE.test(ch)) out += ch;
    else if (code < 0x80) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  }
  return `"${out}"`;
}

/** The problems of a `fieldManager` value (too long, characters that are not printable). */
export function fieldManagerErrors(value: string): FieldError[] {
  const out: FieldError[] = [];
  if (Buffer.byteLength(value) > FIELD_MANAGER_MAX_BYTES) out.push(fieldErrors.tooLong('fieldManager', FIELD_MANAGER_MAX_BYTES));
  let offset = 0;
  for (const ch of value) {
    if (!PRINTABLE.test(ch)) {
      const code = (ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');
      out.push({ field: 'fieldManager', reason: 'FieldValueInvalid', message: `Invalid value: ${goQuote(value)}: invalid character U+${code} (at position ${offset})` });
    }
    offset += Buffer.byteLength(ch);
  }
  return out;
}

/** The manager named by a User-Agent: its first segment, printable characters only, at most 128 bytes. */
function managerFromUserAgent(userAgent: string | undefined): string {
  let out = '';
  for (const ch of (userAgent ?? '').split('/')[0] ?? '') {
    if (!PRINTABLE.test(ch)) continue;
    if (Buffer.byteLength(out + ch) > FIELD_MANAGER_MAX_BYTES) break;
    out += ch;
  }
  return out;
}

/**
 * The manager of a create, update or patch. An empty value counts as absent. A `fieldManager`
 * kube-apiserver would refuse is a 422 on CreateOptions or UpdateOptions; a patch's options are
 * checked together by the patch code (PatchOptions).
 */
export function fieldManagerOf(query: URLSearchParams, userAgent: string | undefined, verb: 'create' | 'update' | 'patch'): string {
  const given = query.get('fieldManager') ?? '';
  if (!given) return managerFromUserAgent(userAgent);
  const problems = verb === 'patch' ? [] : fieldManagerErrors(given);
  if (problems.length > 0) throw errors.invalidOptions(verb === 'create' ? 'CreateOptions' : 'UpdateOptions', problems);
  return given;
}
