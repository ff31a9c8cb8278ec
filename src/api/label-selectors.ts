// Label selectors: the `labelSelector=` grammar and metav1.LabelSelector objects, parsed with
// kube-apiserver's rules and error texts, matching, and the canonical string form. Pure; shared by
// the API server (LIST/WATCH filtering), the hub controllers (cluster-set selectors) and the client
// runtime (informer filtering).

import { labelValueProblems, qualifiedNameProblems } from './name-rules.js';
import { SelectorParseError } from './selector-error.js';

type LabelOperator =
  | 'Equals' | 'DoubleEquals' | 'NotEquals' | 'In' | 'NotIn' | 'Exists' | 'DoesNotExist' | 'GreaterThan' | 'LessThan';

interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  /** Sorted and de-duplicated, as kube-apiserver keeps them. Empty for Exists/DoesNotExist. */
  values: string[];
}

/**
 * All requirements must hold. `matchNothing` is the selector built from an absent
 * metav1.LabelSelector (kube's `labels.Nothing()`); an empty requirement list matches everything.
 */
export interface LabelSelector {
  requirements: LabelRequirement[];
  matchNothing?: boolean;
}

function invalid(field: string, value: unknown, detail: string): string {
  // Go's %#v rendering of the bad value, as in kube-apiserver's messages.
  const rendered = Array.isArray(value) ? `[]string{${value.map((v) => JSON.stringify(v)).join(', ')}}` : JSON.stringify(value);
  return `${field}: Invalid value: ${rendered}: ${detail}`;
}

/** Validates one requirement as labels.NewRequirement does (paths `key`, `values[i]`); throws SelectorParseError. */
function newRequirement(key: string, operator: LabelOperator, rawValues: string[]): LabelRequirement {
  const keyErrs = qualifiedNameProblems(key);
  if (keyErrs.length > 0) throw new SelectorParseError(invalid('key', key, keyErrs.join('; ')));
  const values = [...new Set(rawValues)].sort();
  const valuesPath = 'values';
  const errs: string[] = [];
  switch (operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) errs.push(invalid(valuesPath, values, "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case 'Equals':
    case 'DoubleEquals':
    case 'NotEquals':
      if (values.length !== 1) errs.push(invalid(valuesPath, values, 'exact-match compatibility requires one single value'));
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length !== 0) errs.push(invalid(valuesPath, values, 'values set must be empty for exists and does not exist'));
      break;
    case 'GreaterThan':
    case 'LessThan':
      if (values.length !== 1) errs.push(invalid(valuesPath, values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v)) errs.push(invalid(`${valuesPath}[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
  }
  values.forEach((v, i) => {
    const problems = labelValueProblems(v);
    if (problems.length > 0) errs.push(invalid(`${valuesPath}[${i}][${key}]`, v, problems.join('; ')));
  });
  if (errs.length === 1) throw new SelectorParseError(errs[0] as string);
  if (errs.length > 1) throw new SelectorParseError(`[${errs.join(', ')}]`);
  return { key, operator, values };
}

// ---------------------------------------------------------------------------------------------
// Label selector string grammar

type TokenKind =
  | 'ident' | 'notExist' | 'notEquals' | 'equals' | 'doubleEquals' | 'in' | 'notin'
  | 'open' | 'close' | 'comma' | 'gt' | 'lt' | 'end';

interface Token {
  kind: TokenKind;
  lit: string;
}

const SYMBOLS: ReadonlyArray<[string, TokenKind]> = [
  ['!=', 'notEquals'], ['==', 'doubleEquals'], ['!', 'notExist'], ['=', 'equals'],
  ['(', 'open'], [')', 'close'], [',', 'comma'], ['>', 'gt'], ['<', 'lt'],
];
const SPECIAL_CHARS = new Set(['!', '=', '(', ')', ',', '>', '<']);

function tokenize(s: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i] as string;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (SPECIAL_CHARS.has(c)) {
      const sym = SYMBOLS.find(([lit]) => s.startsWith(lit, i)) as [string, TokenKind];
      out.push({ kind: sym[1], lit: sym[0] });
      i += sym[0].length;
      continue;
    }
    let j = i;
    while (j < s.length && !SPECIAL_CHARS.has(s[j] as string) && !/\s/.test(s[j] as string)) j++;
    const lit = s.slice(i, j);
    out.push({ kind: lit === 'in' ? 'in' : lit === 'notin' ? 'notin' : 'ident', lit });
    i = j;
  }
  out.push({ kind: 'end', lit: '' });
  return out;
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

class LabelParser {
  private pos = 0;
  constructor(private readonly tokens: Token[]) {}

  /** In "values" context, `in`/`notin` are plain identifiers. */
  private peek(values: boolean): Token {
    const t = this.tokens[this.pos] as Token;
    return values && (t.kind === 'in' || t.kind === 'notin') ? { kind: 'ident', lit: t.lit } : t;
  }
  private next(values: boolean): Token {
    const t = this.peek(values);
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }

  parse(): LabelRequirement[] {
    const reqs: LabelRequirement[] = [];
    for (;;) {
      const t = this.peek(true);
      if (t.kind === 'end') return reqs;
      if (t.kind !== 'ident' && t.kind !== 'notExist') {
        throw new SelectorParseError(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
      }
      try {
        reqs.push(this.requirement());
      } catch (e) {
        if (e instanceof SelectorParseError) throw new SelectorParseError(`unable to parse requirement: ${e.message}`);
        throw e;
      }
      const sep = this.next(true);
      if (sep.kind === 'end') return reqs;
      if (sep.kind !== 'comma') throw new SelectorParseError(`found '${sep.lit}', expected: ',' or 'end of string'`);
      const after = this.peek(true);
      if (after.kind !== 'ident' && after.kind !== 'notExist') {
        throw new SelectorParseError(`found '${after.lit}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let t = this.next(true);
    let negated = false;
    if (t.kind === 'notExist') {
      negated = true;
      t = this.next(true);
    }
    if (t.kind !== 'ident') throw new SelectorParseError(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErrs = qualifiedNameProblems(key);
    if (keyErrs.length > 0) throw new SelectorParseError(invalid('<nil>', key, keyErrs.join('; ')));
    const la = this.peek(true).kind;
    if (negated || la === 'end' || la === 'comma') {
      // `!k` is DoesNotExist even when something follows; the caller then reports the stray token.
      return newRequirement(key, negated ? 'DoesNotExist' : 'Exists', []);
    }
    const op = this.operator();
    const values = op === 'In' || op === 'NotIn' ? this.setValues() : this.exactValue();
    return newRequirement(key, op, values);
  }

  private operator(): LabelOperator {
    const t = this.next(false);
    switch (t.kind) {
      case 'in': return 'In';
      case 'notin': return 'NotIn';
      case 'equals': return 'Equals';
      case 'doubleEquals': return 'DoubleEquals';
      case 'notEquals': return 'NotEquals';
      case 'gt': return 'GreaterThan';
      case 'lt': return 'LessThan';
      default: throw new SelectorParseError(`found '${t.lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private setValues(): string[] {
    const open = this.next(true);
    if (open.kind !== 'open') throw new SelectorParseError(`found '${open.lit}' expected: '('`);
    const la = this.peek(true);
    if (la.kind === 'close') {
      this.next(true);
      return [''];
    }
    if (la.kind !== 'ident' && la.kind !== 'comma') {
      throw new SelectorParseError(`found '${la.lit}', expected: ',', ')' or identifier`);
    }
    const values = this.identifierList();
    const close = this.next(true);
    if (close.kind !== 'close') throw new SelectorParseError(`found '${close.lit}', expected: ')'`);
    return values;
  }

  private identifierList(): string[] {
    const values: string[] = [];
    for (;;) {
      const t = this.next(true);
      if (t.kind === 'ident') {
        values.push(t.lit);
        const la = this.peek(true);
        if (la.kind === 'comma') continue;
        if (la.kind === 'close') return values;
        throw new SelectorParseError(`found '${la.lit}', expected: ',' or ')'`);
      } else if (t.kind === 'comma') {
        // Empty members: "(,a)", "(a,)", "(a,,b)" all contribute the empty value.
        if (values.length === 0) values.push('');
        const la = this.peek(true);
        if (la.kind === 'close') {
          values.push('');
          return values;
        }
        if (la.kind === 'comma') {
          this.next(true);
          values.push('');
        }
      } else {
        throw new SelectorParseError(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
  }

  private exactValue(): string[] {
    const la = this.peek(true);
    if (la.kind === 'end' || la.kind === 'comma') return [''];
    const t = this.next(true);
    if (t.kind === 'ident') return [t.lit];
    throw new SelectorParseError(`found '${t.lit}', expected: identifier`);
  }
}

/** Parses a `labelSelector=` query value. Empty or blank matches everything. */
export function parseLabelSelector(s: string): LabelSelector {
  const requirements = new LabelParser(tokenize(s)).parse();
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { requirements };
}

/** Whether `labels` satisfy every requirement. */
export function matchesLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  if (sel.matchNothing) return false;
  const ls = labels ?? {};
  return sel.requirements.every((r) => requirementMatches(r, ls));
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'Equals':
    case 'DoubleEquals':
    case 'In':
      return has && r.values.includes(v as string);
    case 'NotEquals':
    case 'NotIn':
      return !has || !r.values.includes(v as string);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    case 'GreaterThan':
    case 'LessThan': {
      if (!has || !/^[+-]?\d+$/.test(v as string)) return false;
      const lv = BigInt(v as string);
      const rv = BigInt(r.values[0] as string);
      return r.operator === 'GreaterThan' ? lv > rv : lv < rv;
    }
  }
}

/** Renders a selector in the canonical string form (parseable by parseLabelSelector). */
export function formatLabelSelector(sel: LabelSelector): string {
  return sel.requirements.map((r) => {
    switch (r.operator) {
      case 'Exists': return r.key;
      case 'DoesNotExist': return `!${r.key}`;
      case 'Equals': return `${r.key}=${r.values[0] ?? ''}`;
      case 'DoubleEquals': return `${r.key}==${r.values[0] ?? ''}`;
      case 'NotEquals': return `${r.key}!=${r.values[0] ?? ''}`;
      case 'In': return `${r.key} in (${r.values.join(',')})`;
      case 'NotIn': return `${r.key} notin (${r.values.join(',')})`;
      case 'GreaterThan': return `${r.key}>${r.values[0] ?? ''}`;
      case 'LessThan': return `${r.key}<${r.values[0] ?? ''}`;
    }
  }).join(',');
}

// ---------------------------------------------------------------------------------------------
// metav1.LabelSelector

interface LabelSelectorRequirementObject {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirementObject[];
}

const OBJECT_OPERATORS: Record<string, LabelOperator> = {
  In: 'In', NotIn: 'NotIn', Exists: 'Exists', DoesNotExist: 'DoesNotExist',
};

/**
 * metav1.LabelSelectorAsSelector: `undefined`/`null` selects nothing, `{}` selects everything.
 * Throws SelectorParseError for unknown operators or invalid keys/values.
 */
export function labelSelectorFromObject(obj: LabelSelectorObject | null | undefined): LabelSelector {
  if (obj === null || obj === undefined) return { requirements: [], matchNothing: true };
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(obj.matchLabels ?? {})) {
    reqs.push(newRequirement(k, 'Equals', [v]));
  }
  for (const expr of obj.matchExpressions ?? []) {
    const op = OBJECT_OPERATORS[expr.operator];
    if (!op) throw new SelectorParseError(`${JSON.stringify(expr.operator)} is not a valid label selector operator`);
    reqs.push(newRequirement(expr.key, op, expr.values ?? []));
  }
  reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { requirements: reqs };
}
