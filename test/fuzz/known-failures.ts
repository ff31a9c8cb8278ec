// Failures the fuzz suite finds today that are being fixed elsewhere (issue 9): each entry is
// matched narrowly (violation kind plus what triggers it), says why, and is set aside — counted and
// reported, not hidden — so the suite stays green meanwhile. Remove an entry once its fix lands;
// `npm test` then checks the fix for good.

import type { Violation } from './response-oracle.js';

export interface FailureContext {
  identity: string;
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body?: Buffer;
  status: number | undefined;
  violation: Violation;
}

export interface KnownFailure {
  id: string;
  /** What fails, why, and which fix removes it. */
  reason: string;
  matches(c: FailureContext): boolean;
}

export const KNOWN_FAILURES: readonly KnownFailure[] = [
  {
    id: 'no-host-bare-400',
    reason: 'issue 9 item 8: an HTTP/1.1 request without a Host header gets a bare 400 from Node\'s HTTP server (requireHostHeader), '
      + 'before the handler runs, without a Status body',
    matches: (c) => c.violation.kind === 'raw-bare-error' && c.status === 400 && c.body !== undefined && !/\nhost:/i.test(c.body.toString('latin1')),
  },
  {
    id: 'broken-chunked-body-dropped',
    reason: 'issue 9 item 8: a request whose headers were accepted but whose chunked body framing is broken (chunk size `zz`) gets no answer: '
      + 'the connection is closed instead of a 400 Status',
    matches: (c) => c.violation.kind === 'raw-dropped' && c.body !== undefined && c.body.includes('\nzz\r\nabc\r\n'),
  },
  {
    id: 'unknown-expectation-bare-417',
    reason: 'kube-apiserver parity question: an `Expect` other than 100-continue gets a bare 417 from Node\'s HTTP server (no '
      + '\'checkExpectation\' listener), as Go\'s server also answers it; issue 9 item 8 asks for a Status on every rejection',
    matches: (c) => c.violation.kind === 'raw-bare-error' && c.status === 417,
  },
  {
    id: 'connect-dropped',
    reason: 'issue 9 item 8: a CONNECT request gets no answer at all: Node\'s HTTP server closes the connection when nobody listens to its \'connect\' event',
    matches: (c) => c.violation.kind === 'raw-dropped' && c.method === 'CONNECT',
  },
  {
    id: 'megabyte-name-echoed',
    reason: 'issue 9 items 2/5: a create whose metadata.name is megabytes long is refused (413/422) with a message quoting the whole name '
      + '2 to 4 times (a 1 MB name gets a 4 MB 422, a 3 MiB one a 6 MiB 413), whose encoding (sendJson) blocks the event loop ~100-150 ms; '
      + 'messages should cut long values, as kube-apiserver omits values of too-long fields',
    matches: (c) => c.violation.kind === 'event-loop-blocked' && c.body !== undefined && /"name":\s*"[^"]{100000}/.test(c.body.toString('latin1')),
  },
  {
    id: 'multi-megabyte-body-cpu',
    reason: 'issue 9 item 5: a body of 2-3 MiB (one huge string) costs 35-75 ms of synchronous decoding, validation and size check before '
      + 'its 413 or 201, and past 100 ms now and then on a loaded machine; the decode/validate/encode path has no yield',
    matches: (c) => c.violation.kind === 'event-loop-blocked' && c.body !== undefined && c.body.length >= 2 * 1024 * 1024,
  },
  {
    id: 'resource-version-on-create-500',
    reason: 'kube-apiserver parity: a create carrying metadata.resourceVersion is answered 500 InternalError by kube-apiserver too '
      + '(test/apiserver/bad-input.test.ts asserts it); decide whether to answer 4xx instead',
    matches: (c) => c.violation.kind === 'server-error' && c.violation.detail.includes('resourceVersion should not be set on objects to be created'),
  },
];

export function matchKnownFailure(list: readonly KnownFailure[], c: FailureContext): KnownFailure | undefined {
  return list.find((k) => k.matches(c));
}
