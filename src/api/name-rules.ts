// The name rules of apimachinery's validation package, with kube-apiserver's error texts: DNS-1123
// labels and subdomains (object and namespace names), qualified names (label and annotation keys,
// finalizers) and label values. Pure; shared by the API server and the clients that check names
// before sending them.

const DNS1123_LABEL_FMT = '[a-z0-9]([-a-z0-9]*[a-z0-9])?';
const DNS1123_SUBDOMAIN_FMT = `${DNS1123_LABEL_FMT}(\\.${DNS1123_LABEL_FMT})*`;
const QUALIFIED_NAME_FMT = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]';
const LABEL_VALUE_FMT = `(${QUALIFIED_NAME_FMT})?`;

const DNS1123_LABEL_RE = new RegExp(`^${DNS1123_LABEL_FMT}$`);
const DNS1123_SUBDOMAIN_RE = new RegExp(`^${DNS1123_SUBDOMAIN_FMT}$`);
const QUALIFIED_NAME_RE = new RegExp(`^${QUALIFIED_NAME_FMT}$`);
const LABEL_VALUE_RE = new RegExp(`^${LABEL_VALUE_FMT}$`);

const DNS1123_LABEL_MAX_LENGTH = 63;
const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
const QUALIFIED_NAME_MAX_LENGTH = 63;
const LABEL_VALUE_MAX_LENGTH = 63;

/** validation.RegexError: the rule, examples and the regex, worded as Go words them. */
function regexError(msg: string, fmt: string, examples: string[]): string {
  return `${msg} (e.g. ${examples.map((e) => `'${e}', `).join(' or ')}regex used for validation is '${fmt}')`;
}

/** validation.MaxLenError. */
function maxLengthMessage(max: number): string {
  return `must be no more than ${max} characters`;
}

export const DNS1123_LABEL_MESSAGE = regexError(
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character",
  DNS1123_LABEL_FMT,
  ['my-name', '123-abc'],
);
export const DNS1123_SUBDOMAIN_MESSAGE = regexError(
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
  DNS1123_SUBDOMAIN_FMT,
  ['example.com'],
);
const QUALIFIED_NAME_MESSAGE = regexError(
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  QUALIFIED_NAME_FMT,
  ['MyName', 'my.name', '123-abc'],
);
const LABEL_VALUE_MESSAGE = regexError(
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character",
  LABEL_VALUE_FMT,
  ['MyValue', 'my_value', '12345'],
);

/** Matches the DNS-1123 label pattern, whatever its length. */
export function matchesDns1123Label(s: string): boolean {
  return DNS1123_LABEL_RE.test(s);
}

export function isDns1123Label(s: string): boolean {
  return s.length <= DNS1123_LABEL_MAX_LENGTH && DNS1123_LABEL_RE.test(s);
}

export function isDns1123Subdomain(s: string): boolean {
  return s.length <= DNS1123_SUBDOMAIN_MAX_LENGTH && DNS1123_SUBDOMAIN_RE.test(s);
}

/** The problems of a value held to a length and a pattern, in Go's order: length first. */
function lengthAndPatternProblems(s: string, max: number, re: RegExp, message: string): string[] {
  const errs: string[] = [];
  if (s.length > max) errs.push(maxLengthMessage(max));
  if (!re.test(s)) errs.push(message);
  return errs;
}

/** validation.IsDNS1123Label: every rule `s` breaks; [] when valid. */
export function dns1123LabelProblems(s: string): string[] {
  return lengthAndPatternProblems(s, DNS1123_LABEL_MAX_LENGTH, DNS1123_LABEL_RE, DNS1123_LABEL_MESSAGE);
}

/** validation.IsDNS1123Subdomain: every rule `s` breaks; [] when valid. */
export function dns1123SubdomainProblems(s: string): string[] {
  return lengthAndPatternProblems(s, DNS1123_SUBDOMAIN_MAX_LENGTH, DNS1123_SUBDOMAIN_RE, DNS1123_SUBDOMAIN_MESSAGE);
}

/** validation.IsQualifiedName (label and annotation keys, finalizers): every rule `key` breaks; [] when valid. */
export function qualifiedNameProblems(key: string): string[] {
  const parts = key.split('/');
  let name: string;
  const errs: string[] = [];
  if (parts.length === 1) {
    name = parts[0] as string;
  } else if (parts.length === 2) {
    const prefix = parts[0] as string;
    name = parts[1] as string;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else if (prefix.length > DNS1123_SUBDOMAIN_MAX_LENGTH) errs.push(`prefix part ${maxLengthMessage(DNS1123_SUBDOMAIN_MAX_LENGTH)}`);
    else if (!DNS1123_SUBDOMAIN_RE.test(prefix)) errs.push(`prefix part ${DNS1123_SUBDOMAIN_MESSAGE}`);
  } else {
    return [`a qualified name ${QUALIFIED_NAME_MESSAGE} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX_LENGTH) errs.push(`name part ${maxLengthMessage(QUALIFIED_NAME_MAX_LENGTH)}`);
  if (name.length > 0 && !QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${QUALIFIED_NAME_MESSAGE}`);
  return errs;
}

/** validation.IsValidLabelValue: every rule `value` breaks; [] when valid. */
export function labelValueProblems(value: string): string[] {
  return lengthAndPatternProblems(value, LABEL_VALUE_MAX_LENGTH, LABEL_VALUE_RE, LABEL_VALUE_MESSAGE);
}
