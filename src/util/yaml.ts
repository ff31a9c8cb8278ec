// The program's one YAML library, js-yaml: a single small module (the agent must idle in little
// memory, and the Kubernetes client used by our tests loads the same library). Loading follows YAML
// 1.2's core schema, so text never turns into dates or binary and `yes` stays a string; duplicate
// keys, unknown tags and documents that aliases blow up are refused. Dumping writes plain YAML:
// no anchors, no folded lines, double quotes where quoting is needed (as Go's YAML writer), and
// strings a YAML 1.1 reader would take for booleans or numbers quoted.

import { CORE_SCHEMA, dump, load, loadAll, YAMLException } from 'js-yaml';

/** Text that is not YAML, or YAML this program refuses. */
export class YamlError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'YamlError';
  }
}

/**
 * The parser is recursive: past this nesting it stops with an error instead of running out of
 * stack. Deeper than any real document; callers with a stricter limit check the parsed value.
 */
const MAX_PARSE_DEPTH = 1000;

/**
 * Aliases let a few hundred bytes name a tree of billions of nodes. The parser shares an aliased
 * node instead of copying it, so loading stays cheap, but anything that later copies or serialises
 * the value expands it. A document is refused when, expanded, its nodes plus the characters of its
 * keys and strings exceed this floor plus a multiple of its length: text without aliases stays
 * well under that, while the expansion of aliases is bounded by the size of the text.
 */
const EXPANSION_FLOOR = 1_000_000;
const EXPANSION_PER_CHARACTER = 4;

const LOAD_OPTIONS = { schema: CORE_SCHEMA, maxDepth: MAX_PARSE_DEPTH };

/** One YAML document; empty text (or only comments) gives null. */
export function parseYaml(text: string): unknown {
  const doc = parsing(() => load(text, LOAD_OPTIONS));
  refuseExcessiveAliasing(doc, text.length);
  return doc ?? null;
}

/** Every document of a multi-document stream (`---` separated), empty ones as null. */
export function parseYamlDocuments(text: string): unknown[] {
  const docs = parsing(() => loadAll(text, null, LOAD_OPTIONS));
  refuseExcessiveAliasing(docs, text.length);
  return docs.map((d) => d ?? null);
}

export interface ToYamlOptions {
  /** Map keys in sorted order (default: insertion order). */
  sortKeys?: boolean;
  /** Sequence items indented under their key (default), or level with it as Go's kubeconfig writer does. */
  indentSequences?: boolean;
}

/** A value as YAML text. Map entries holding undefined are left out, as JSON.stringify does. */
export function toYaml(value: unknown, opts: ToYamlOptions = {}): string {
  return dump(value, {
    noRefs: true,
    lineWidth: -1,
    quotingType: '"',
    sortKeys: opts.sortKeys ?? false,
    noArrayIndent: opts.indentSequences === false,
  });
}

function parsing<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (!(err instanceof YAMLException)) throw err;
    const mark: { line: number; column: number } | undefined = err.mark;
    const at = mark ? ` at line ${mark.line + 1}, column ${mark.column + 1}` : '';
    throw new YamlError(`${err.reason}${at}`, { cause: err });
  }
}

function refuseExcessiveAliasing(value: unknown, textLength: number): void {
  const limit = EXPANSION_FLOOR + EXPANSION_PER_CHARACTER * textLength;
  let weight = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    weight += 1 + (typeof v === 'string' ? v.length : 0);
    if (typeof v === 'object' && v !== null) {
      if (Array.isArray(v)) {
        for (const c of v as unknown[]) stack.push(c);
      } else {
        for (const [k, c] of Object.entries(v)) {
          weight += k.length;
          stack.push(c);
        }
      }
    }
    if (weight > limit) throw new YamlError(`excessive aliasing: written out, the document would exceed ${limit} nodes and characters`);
  }
}
