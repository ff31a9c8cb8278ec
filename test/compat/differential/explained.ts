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

const ANY = /./;
const MESSAGE_ONLY = /^\$\.body\.(message|details\.causes\[\d+\]\.message):/;

const EXPLAINED: Explanation[] = [
  {
    step: /^error: (malformed JSON|body is not an object|wrong kind in body|wrong apiVersion in body|unknown field, strict|unsupported media type|json patch that is not a list|patch with an unknown content type|invalid timeoutSeconds|json patch test fails)|^list: invalid continue token/,
    line: MESSAGE_ONLY,
    reason: 'decoding and parsing errors: same code and reason, worded by our decoder rather than Go\'s (JSON, query and continue-token parsers)',
  },
  {
    step: /^error: wrong field type/,
    line: ANY,
    reason: 'a wrongly typed field of a built-in kind is a 422 Invalid naming the field (kube-apiserver\'s Go decoder refuses the body with a 400)',
  },
  {
    step: /^error: update with an unparseable resourceVersion$/,
    line: ANY,
    reason: 'an unparseable resourceVersion in an update is a 409 Conflict (kube-apiserver answers 500 InternalError)',
  },
  {
    step: /^error: json patch on a missing path$/,
    line: ANY,
    reason: 'JSON patch follows RFC 6902: replace at a missing member is refused (kube-apiserver\'s JSON patch library adds it)',
  },
  {
    step: /^error: unknown group/,
    line: /^\$\.body: kube="404 page not found/,
    reason: 'an unknown API group is a 404 Status (kube-apiserver answers 404 with a plain-text body)',
  },
  {
    step: /^watch: initial events and their end bookmark$/,
    line: ANY,
    reason: 'watch lists (sendInitialEvents) are refused with 422, as kube-apiserver does with the WatchList feature off',
  },
  {
    step: /^(watch: too old resourceVersion|list: too old resourceVersion with Exact match)/,
    line: ANY,
    reason: 'history is compacted on a short schedule (retention options), so an old resourceVersion is 410 Expired at once; kube-apiserver replays from its watch cache or etcd until etcd compacts (every 5 minutes)',
  },
  {
    step: /^finalizer: cannot add a finalizer while deleting$/,
    line: /^\$\.body\.details\.causes\[1\]: kube=\{.*no new finalizers can be added.* embedded=\(absent\)$/,
    reason: 'kube-apiserver repeats the finalizer cause twice; we give it once',
  },
  {
    step: /^sar: no user nor group/,
    line: /^\$\.body\.(message|details\.kind):/,
    reason: 'kube-apiserver leaves the kind out of this SubjectAccessReview validation error (".authorization.k8s.io \\"\\" is invalid"); we name it',
  },
  {
    step: /^kubectl: (get -o yaml|apply --server-side conflicts with client-side apply)$/,
    line: ANY,
    reason: 'server-side apply by the manager "kubectl" neither takes over, without conflict, the fields client-side apply set (kube-apiserver allows those conflicts from the last-applied-configuration annotation) nor rewrites that annotation',
  },
  {
    step: /^kubectl: explain configmap(\.data)?$/,
    line: ANY,
    reason: 'the built-in kinds\' OpenAPI schemas name their fields but leave most of them untyped (<Object>) and without descriptions',
  },
];

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
