// Request headers: Accept variants (JSON, YAML, Table, PartialObjectMetadata, protobuf, garbage),
// Content-Type for JSON, YAML and the four patch types (and wrong ones), impersonation, extra or
// forged credentials, front-proxy headers, odd, many or oversized values. Values stay within what
// Node's HTTP client sends (tab, visible ASCII, Latin-1).

import fc from 'fast-check';

const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

const ACCEPTS = [
  'application/json', 'application/yaml', '*/*', 'application/*',
  'application/json;as=Table;v=v1;g=meta.k8s.io',
  'application/json;as=Table;v=v1beta1;g=meta.k8s.io',
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
  'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json',
  'application/json;as=APIGroupDiscoveryList;v=v2;g=apidiscovery.k8s.io,application/json',
  'application/vnd.kubernetes.protobuf', 'application/vnd.kubernetes.protobuf,application/json', 'application/cbor',
  'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'text/html', 'text/plain', 'application/json;q=0',
  'application/json;q=abc', 'application/yaml;q=0.5,application/json;q=0.9', 'application/json;as=Table', 'application/json;as=Table;v=v9;g=meta.k8s.io',
  ',,,', ';;;', ';q=1', 'application/json;charset=utf-16',
];

const CONTENT_TYPES = [
  'application/json', 'application/yaml', ...PATCH_TYPES, 'application/json; charset=utf-8', 'application/yaml;charset=utf-16',
  'APPLICATION/JSON', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/vnd.kubernetes.protobuf',
  'application/cbor', 'application/apply-patch+cbor', 'application/json-patch+json;q=1', '', ';', '*/*',
];

/** Visible ASCII, space, tab and Latin-1: what Node's client accepts in a header value. */
const headerValueChar = fc.oneof(
  { weight: 10, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) },
  { weight: 1, arbitrary: fc.integer({ min: 0x80, max: 0xff }) },
  { weight: 1, arbitrary: fc.constant(0x09) },
).map((c) => String.fromCharCode(c));
export const headerValue: fc.Arbitrary<string> = fc.string({ unit: headerValueChar, maxLength: 40 });
const TOKEN = "abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+-.^_`|~";
const headerName = fc.string({ unit: fc.constantFrom(...TOKEN), minLength: 1, maxLength: 24 });

type Header = [string, string];
const h = (name: string, values: fc.Arbitrary<string>): fc.Arbitrary<Header> => values.map((v) => [name, v] as Header);

const impersonation: fc.Arbitrary<Header> = fc.oneof(
  h('impersonate-user', fc.constantFrom('fuzz-admin', 'system:admin', 'system:anonymous', 'system:serviceaccount:default:default', 'system:open-cluster-management:cluster1:agent1', 'ocm-ts:hub-controller', '')),
  h('impersonate-group', fc.constantFrom('system:masters', 'system:authenticated', 'system:bootstrappers:managedcluster', '')),
  h('impersonate-uid', fc.constantFrom('1234', '')),
  h('impersonate-extra-scopes', fc.constantFrom('view', '')),
  h('impersonate-extra-%41%42', headerValue),
);

const credentials: fc.Arbitrary<Header> = fc.oneof(
  h('authorization', fc.constantFrom('Bearer garbage', 'Bearer ', 'Bearer', 'Basic Zm9vOmJhcg==', 'Bearer abcdef.0123456789abcdef', 'Bearer abcdef.0123456789abcdeg.x', 'bearer abcdef.0123456789abcdef', 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'Negotiate x')),
  h('x-remote-user', fc.constant('fuzz-admin')),
  h('x-remote-group', fc.constant('system:masters')),
);

const other: fc.Arbitrary<Header> = fc.oneof(
  h('user-agent', fc.oneof(headerValue, fc.constantFrom('kubectl/v1.30.0 (linux/amd64) kubernetes/abcdef', ''))),
  h('x-forwarded-for', fc.constantFrom('1.2.3.4', '::1, 10.0.0.1', 'garbage')),
  h('content-encoding', fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x')),
  h('accept-encoding', fc.constantFrom('gzip', '*', 'identity;q=0')),
  h('if-match', fc.constantFrom('*', '"x"')),
  h('audit-id', headerValue),
  h('warning', headerValue),
  h('x-http-method-override', fc.constantFrom('DELETE', 'PATCH')),
  h('upgrade', fc.constantFrom('websocket', 'SPDY/3.1', 'h2c')),
  h('connection', fc.constantFrom('close', 'keep-alive', 'Upgrade')),
  fc.tuple(headerName, headerValue),
);

const oversized: fc.Arbitrary<Header> = fc.integer({ min: 1024, max: 40 * 1024 }).map((n) => ['x-fuzz-large', 'v'.repeat(n)] as Header);
const many: fc.Arbitrary<Header[]> = fc.integer({ min: 20, max: 150 }).map((n) => Array.from({ length: n }, (_, i) => [`x-fuzz-${i}`, String(i)] as Header));

export interface GeneratedHeaders {
  accept?: string;
  contentType?: string;
  extra: Header[];
}

export const headersArbitrary: fc.Arbitrary<GeneratedHeaders> = fc.record({
  accept: fc.option(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...ACCEPTS) }, { weight: 1, arbitrary: headerValue }), { nil: undefined, freq: 2 }),
  contentType: fc.option(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: headerValue }), { nil: undefined, freq: 3 }),
  extra: fc.oneof(
    { weight: 10, arbitrary: fc.constant<Header[]>([]) },
    { weight: 2, arbitrary: fc.array(impersonation, { minLength: 1, maxLength: 3 }) },
    { weight: 2, arbitrary: fc.array(credentials, { minLength: 1, maxLength: 2 }) },
    { weight: 3, arbitrary: fc.array(other, { minLength: 1, maxLength: 3 }) },
    { weight: 1, arbitrary: oversized.map((x) => [x]) },
    { weight: 1, arbitrary: many },
  ),
});
