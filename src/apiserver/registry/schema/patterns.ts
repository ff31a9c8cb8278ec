// The `pattern` keyword of CRD schemas, evaluated as kube-apiserver does: RE2 syntax and semantics
// (Go's regexp), matched as a search (the pattern may match anywhere unless it is anchored), in
// time linear in the input. JavaScript's own RegExp backtracks, so a pattern such as `^(a+)+$`
// would let one crafted string stall the server; an RE2 engine cannot be made to do that.

import { RE2JS } from 're2js';
import { errorMessage } from '../../../util/errors.js';
import type { JSONSchemaProps } from './types.js';

export type CompiledPattern =
  | { readonly ok: true; test(value: string): boolean }
  | { readonly ok: false; /** Go's wording: `error parsing regexp: ...`. */ readonly error: string };

/** Compiles an RE2 pattern; a pattern RE2 refuses (lookaround, backreferences, ...) is `ok: false`. */
export function compilePattern(pattern: string): CompiledPattern {
  try {
    const re = RE2JS.compile(pattern);
    return { ok: true, test: (value) => re.test(value) };
  } catch (err) {
    return { ok: false, error: errorMessage(err) };
  }
}

/** The compiled pattern of a schema node, compiled once per node. */
export interface PatternCache {
  get(node: JSONSchemaProps & { pattern: string }): CompiledPattern;
}

/**
 * A cache keyed by the schema node itself: compiled patterns live exactly as long as the schema
 * that declares them (a served CRD version), so the cache needs no size bound and never serves a
 * pattern of a deleted or replaced CRD.
 */
export function createPatternCache(): PatternCache {
  const byNode = new WeakMap<object, { pattern: string; compiled: CompiledPattern }>();
  return {
    get(node) {
      const hit = byNode.get(node);
      if (hit && hit.pattern === node.pattern) return hit.compiled;
      const compiled = compilePattern(node.pattern);
      byNode.set(node, { pattern: node.pattern, compiled });
      return compiled;
    },
  };
}
