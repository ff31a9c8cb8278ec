// Label and field selectors: parsing with kube-apiserver's
// grammar and error texts, matching, and the selectable field values of objects. Pure functions,
// shared by the API server (LIST/WATCH filtering) and the client runtime (building query strings).

import type { KubeObject } from './meta.js';

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

/** A malformed selector; the HTTP layer answers it with 400 BadRequest and this message. */
export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}

// ---------------------------------------------------------------------------------------------
// Label key/value validation (apimachinery validation.IsQualifiedName / IsValidLabelValue texts)

const QUALIFIED_NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function regexError(msg: string, fmt: string, examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

const QUALIFIED_NAME_MSG = regexError(
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]',
  ['MyName', 'my.name', '123-abc'],
);
const SUBDOMAIN_MSG = regexError(
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*',
  ['example.com'],
);
const LABEL_VALUE_MSG = regexError(
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?',
  ['MyValue', 'my_value', '12345'],
);

/** Problems with a label key (qualified name), as kube-apiserver words them; [] when valid. */
export function labelKeyProblems(key: string): string[] {
  const parts = key.split('/');
  let name: string;
  const errs: string[] = [];
  if (parts.length === 1) {
    name = parts[0] as string;
  } else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else if (prefix.length > 253) errs.push('prefix part must be no more than 253 characters');
    else if (!DNS1123_SUBDOMAIN_RE.test(prefix)) errs.push(`prefix part ${SUBDOMAIN_MSG}`);
  } else {
    return [`a qualified name ${QUALIFIED_NAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (name.length > 0 && !QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${QUALIFIED_NAME_MSG}`);
  return errs;
}

/** Problems with a label value; [] when valid. */
function labelValueProblems(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!LABEL_VALUE_RE.test(value)) errs.push(LABEL_VALUE_MSG);
  return errs;
}

function invalid(field: string, value: unknown, detail: string): string {
  // Go's %#v rendering of the bad value, as in kube-apiserver's messages.
  const rendered = Array.isArray(value) ? `[]string{${value.map((v) => JSON.stringify(v)).join(', ')}}` : JSON.stringify(value);
  return `${field}: Invalid value: ${rendered}: ${detail}`;
}

/** Validates one requirement as labels.NewRequirement does (paths `key`, `values[i]`); throws SelectorParseError. */
function newRequirement(key: string, operator: LabelOperator, rawValues: string[]): LabelRequirement {
  const keyErrs = labelKeyProblems(key);
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
    const keyErrs = labelKeyProblems(key);
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

// ---------------------------------------------------------------------------------------------
// Field selectors

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

/**
 * Parses a `fieldSelector=` query value. `supportedFields` are the field labels the resource
 * allows (see `supportedFieldLabels`); any other field throws `field label not supported: <f>`.
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
    if (!supported.has(field)) throw new SelectorParseError(`field label not supported: ${field}`);
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

/** Identifies the kind an object belongs to, for its selectable fields. */
export interface SelectableKind {
  /** API group ('' for core). */
  group: string;
  kind: string;
  namespaced: boolean;
}

type Getter = (obj: KubeObject) => string | undefined;

function path(...keys: string[]): Getter {
  return (obj) => {
    let cur: unknown = obj;
    for (const k of keys) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = (cur as Record<string, unknown>)[k];
    }
    if (cur === undefined || cur === null) return undefined;
    return typeof cur === 'string' ? cur : String(cur);
  };
}

const EVENT_OBJECT_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

/** Per-kind field getters beyond metadata.name/metadata.namespace, as kube-apiserver's, keyed by `group/Kind`. */
function extraGetters(group: string, kind: string): Record<string, Getter> {
  switch (`${group}/${kind}`) {
    case '/Secret':
      return { type: path('type') };
    case '/Namespace':
      return { 'status.phase': path('status', 'phase') };
    case '/Node':
      // Absent spec.unschedulable reads as "false", as kube's node field set does.
      return { 'spec.unschedulable': (o) => path('spec', 'unschedulable')(o) ?? 'false' };
    case '/Pod':
      return Object.fromEntries(
        ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP']
          .map((f) => [f, path(...f.split('.'))]),
      );
    case '/Event':
      return {
        ...Object.fromEntries(EVENT_OBJECT_FIELDS.map((f) => [`involvedObject.${f}`, path('involvedObject', f)])),
        reason: path('reason'),
        reportingComponent: path('reportingComponent'),
        source: (o) => path('source', 'component')(o) || path('reportingComponent')(o),
        type: path('type'),
      };
    case 'events.k8s.io/Event':
      // Same storage as core events: read either shape.
      return {
        ...Object.fromEntries(EVENT_OBJECT_FIELDS.map((f) => [
          `regarding.${f}`, (o: KubeObject) => path('regarding', f)(o) ?? path('involvedObject', f)(o),
        ])),
        reason: path('reason'),
        reportingController: (o) => path('reportingController')(o) ?? path('reportingComponent')(o),
        type: path('type'),
      };
    case 'certificates.k8s.io/CertificateSigningRequest':
      return { 'spec.signerName': path('spec', 'signerName') };
    default:
      return {};
  }
}

/**
 * Getters for every field label the kind supports. `metadata.namespace` is accepted for every kind,
 * as kube's default field-label conversion does; cluster-scoped objects read it as "".
 */
export function fieldGettersFor(k: SelectableKind): Record<string, Getter> {
  return {
    'metadata.name': path('metadata', 'name'),
    'metadata.namespace': k.namespaced ? path('metadata', 'namespace') : () => '',
    ...extraGetters(k.group, k.kind),
  };
}

/** The field labels a kind supports in field selectors. */
export function supportedFieldLabels(k: SelectableKind): string[] {
  return Object.keys(fieldGettersFor(k));
}

/** The selectable field values of an object (absent fields are ""). */
export function selectableFieldValues(obj: KubeObject, k: SelectableKind): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [f, get] of Object.entries(fieldGettersFor(k))) out[f] = get(obj) ?? '';
  return out;
}
