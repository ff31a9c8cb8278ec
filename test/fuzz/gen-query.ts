// Query strings: the list/watch/write parameters of kube-apiserver with valid, edge and garbage
// values (forged continue tokens included), plus unknown parameters, repeated keys and broken
// encodings. Comes out encoded, without the leading `?`.

import fc from 'fast-check';
import { boolText, intText, oddString } from './gen-values.js';

const LABEL_SELECTORS = [
  'app=fuzz', 'app!=fuzz', 'app==fuzz', 'app in (fuzz,x)', 'app notin (fuzz)', '!app', 'app', 'app=fuzz,x=y', 'a in ()', 'a in (', 'a=b)',
  'a=', '=b', ',', ' ', 'a>1', 'a<1', 'a in (b', 'open-cluster-management.io/cluster-name=cluster1', 'a/b/c=d', 'x'.repeat(300) + '=b',
  `a in (${Array.from({ length: 200 }, (_, i) => `v${i}`).join(',')})`, 'a=b,'.repeat(100), '\u00e9=1', 'a=b;c=d',
];
const FIELD_SELECTORS = [
  'metadata.name=fuzz-obj', 'metadata.name==fuzz-obj', 'metadata.name!=fuzz-obj', 'metadata.namespace=default', 'metadata.name=a,metadata.name=b',
  'spec.signerName=kubernetes.io/kube-apiserver-client', 'status.phase=Running', 'type=Opaque', 'involvedObject.name=fuzz-obj', 'spec.nodeName=',
  'spec.foo=x', 'metadata.name', '=', 'metadata.name in (a)', 'metadata.labels.app=fuzz', 'metadata.name=' + 'x'.repeat(300),
];
const RESOURCE_VERSIONS = ['', '0', '1', '2', '5', '50', '500', '99999999999', '-1', 'abc', '1.5', '18446744073709551616', ' 1', '0x1'];

/** A continue token in the server's own encoding (base64url JSON) with forged contents, or garbage. */
const continueToken: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', 'garbage', '=====', 'eyJ2IjoxfQ', 'e30'),
  fc.record({
    v: fc.constantFrom<unknown>(1, 2, '1', null),
    rv: fc.oneof(fc.integer({ min: -10, max: 10 }), fc.constantFrom<unknown>(1.5, -1, 1e21, Number.MAX_SAFE_INTEGER, '5', null, 99999999)),
    start: fc.oneof(fc.constantFrom<unknown>('', '/core/secrets/', '/core/secrets/default/fuzz-obj', '/../', '\u0000', 5, null), fc.string({ maxLength: 30 })),
  }).map((t) => Buffer.from(JSON.stringify(t)).toString('base64url')),
);

type Param = [string, string];
const p = (name: string, values: fc.Arbitrary<string>): fc.Arbitrary<Param> => values.map((v) => [name, v] as Param);

const param: fc.Arbitrary<Param> = fc.oneof(
  p('labelSelector', fc.oneof(fc.constantFrom(...LABEL_SELECTORS), oddString)),
  p('fieldSelector', fc.oneof(fc.constantFrom(...FIELD_SELECTORS), oddString)),
  p('limit', intText),
  p('continue', continueToken),
  p('resourceVersion', fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...RESOURCE_VERSIONS) }, { weight: 1, arbitrary: intText })),
  p('resourceVersionMatch', fc.constantFrom('NotOlderThan', 'Exact', '', 'exact', 'Sometimes')),
  p('timeoutSeconds', intText),
  p('watch', boolText),
  p('allowWatchBookmarks', boolText),
  p('sendInitialEvents', boolText),
  p('dryRun', fc.constantFrom('All', '', 'all', 'None', 'All,All')),
  p('fieldValidation', fc.constantFrom('Strict', 'Warn', 'Ignore', '', 'strict', 'Loose')),
  p('fieldManager', fc.oneof(fc.constantFrom('fuzz', 'kubectl-client-side-apply', 'before-first-apply', ''), oddString)),
  p('force', boolText),
  p('propagationPolicy', fc.constantFrom('Background', 'Foreground', 'Orphan', '', 'background', 'Later')),
  p('gracePeriodSeconds', intText),
  p('orphanDependents', boolText),
  p('pretty', boolText),
  p('includeObject', fc.constantFrom('None', 'Metadata', 'Object', 'Everything')),
  p('export', boolText),
  fc.tuple(oddString, oddString),
);

/** Encodes one key or value: mostly percent-encoded, sometimes with `+` for spaces or a broken escape. */
const encoder: fc.Arbitrary<(s: string) => string> = fc.constantFrom(
  (s: string) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd')),
  (s: string) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd')).replace(/%20/g, '+'),
  (s: string) => `${encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))}%zz`,
  (s: string) => s.replace(/[^\x21-\x7e]|[#&=%?]/g, (c) => encodeURIComponent(c.replace(/[\ud800-\udfff]/g, '\ufffd'))),
);

export const queryArbitrary: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.constant('') },
  {
    weight: 8,
    arbitrary: fc.tuple(fc.array(param, { minLength: 1, maxLength: 5 }), encoder, fc.boolean()).map(([params, enc, bareKey]) => params
      .map(([k, v], i) => (bareKey && i === 0 && v === '' ? enc(k) : `${enc(k)}=${enc(v)}`))
      .join('&')),
  },
  { weight: 1, arbitrary: fc.constantFrom('&&&', '=', '==&=', 'a=%', 'watch', 'watch=1&watch=0', 'limit=1&limit=2', '%ff%fe=1', 'x'.repeat(8000) + '=1') },
);
