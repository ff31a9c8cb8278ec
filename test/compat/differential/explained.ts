// Differences between the embedded server and kube-apiserver that are known and accepted, each
// with the reason (the same entries are in the README's Limits). A step's difference is explained
// only when every line of its diff matches an entry for that step.

interface Explanation {
  /** Matches the step name. */
  step: RegExp;
  /** Matches each diff line it explains. */
  line: RegExp;
  reason: string;
}

const EXPLAINED: Explanation[] = [];

export function explain(step: string, diff: string[]): string | undefined {
  const entries = EXPLAINED.filter((e) => e.step.test(step));
  if (entries.length === 0) return undefined;
  const reasons = new Set<string>();
  for (const line of diff) {
    const e = entries.find((x) => x.line.test(line));
    if (!e) return undefined;
    reasons.add(e.reason);
  }
  return [...reasons].join('; ');
}
