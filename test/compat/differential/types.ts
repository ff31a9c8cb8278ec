// The differential test's vocabulary: a check is data (an HTTP request or a kubectl command) sent in
// the same order to the real kube-apiserver and to the embedded server; the report records, per
// check, whether the normalised answers agree.

/** Values a step saved from an earlier answer on the same server (resourceVersions, names, uids). */
export type Vars = Record<string, string>;

export interface HttpAnswer {
  status: number;
  /** Parsed JSON body, or the text when it is not JSON. */
  body: unknown;
  /** Events of a watch, in order (watch steps only). */
  events?: unknown[];
}

export interface HttpStep {
  kind: 'http';
  name: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** `{var}` is replaced by the server's saved value. */
  path: string;
  body?: unknown;
  /** A body built from the server's saved values (wins over `body`). */
  bodyFrom?: (vars: Vars) => unknown;
  contentType?: string;
  headers?: Record<string, string>;
  /** Sent as Impersonate-User (and Impersonate-Group for each group) by the admin. */
  as?: { user: string; groups?: string[] };
  /** Read a watch stream for this long (or until `maxEvents`), then close it. */
  watch?: { ms: number; maxEvents: number };
  /** Repeat the request until this holds (or `timeoutMs` passes), then compare the last answer. */
  until?: (answer: HttpAnswer) => boolean;
  timeoutMs?: number;
  /** Values to remember from the answer for later steps. */
  save?: Record<string, (answer: HttpAnswer) => string | undefined>;
  /** Extra normalisation after the common one (e.g. keep only what the check is about). */
  normalise?: (answer: NormalisedAnswer) => NormalisedAnswer;
  /** Compare metadata.managedFields too (their times as placeholders); other steps leave them out. */
  managedFields?: boolean;
}

export interface KubectlStep {
  kind: 'kubectl';
  name: string;
  /** `{dir}` is replaced by a scratch folder holding the files in `files`. */
  args: string[];
  files?: Record<string, string>;
  /** Stop after this many output lines (for `get -w`), or after `timeoutMs`. */
  lines?: number;
  timeoutMs?: number;
  normalise?: (out: KubectlAnswer) => KubectlAnswer;
}

/** A pause between steps, e.g. so that both servers' controllers have caught up. */
interface WaitStep {
  kind: 'wait';
  name: string;
  ms: number;
}

export type Step = HttpStep | KubectlStep | WaitStep;

export interface NormalisedAnswer {
  status: number;
  body: unknown;
  events?: unknown[];
}

export interface KubectlAnswer {
  exit: number | null;
  stdout: string;
  stderr: string;
}

export interface StepResult {
  name: string;
  kind: Step['kind'];
  equal: boolean;
  /** One line per difference: `path: kube=<value> embedded=<value>`. */
  diff: string[];
  kube: unknown;
  embedded: unknown;
  /** For a difference: the Limits entry that explains it, when every line is explained. */
  explainedBy?: string;
}

interface ExplainedDifference {
  step: string;
  diff: string[];
  reason: string;
}

export interface DifferentialReport {
  steps: StepResult[];
  explained: ExplainedDifference[];
  unexplained: { step: string; diff: string[] }[];
}
