import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from './errors.js';
import { decodePathSegment, parseBool, parseRequestInfo } from './request-info.js';

describe('parseRequestInfo', () => {
  const cases: { name: string; method: string; url: string; expected: Record<string, unknown> }[] = [
    { name: 'core namespaced list', method: 'GET', url: '/api/v1/namespaces/ns/configmaps', expected: { kind: 'resource', group: '', version: 'v1', namespace: 'ns', resource: 'configmaps', name: '', verb: 'list' } },
    { name: 'core object', method: 'GET', url: '/api/v1/namespaces/ns/configmaps/a', expected: { resource: 'configmaps', name: 'a', pathName: 'a', verb: 'get' } },
    { name: 'watch param', method: 'GET', url: '/api/v1/configmaps?watch=True', expected: { verb: 'watch', namespace: '' } },
    { name: 'watch path prefix', method: 'GET', url: '/api/v1/watch/namespaces/ns/configmaps', expected: { verb: 'watch', namespace: 'ns', resource: 'configmaps' } },
    { name: 'field selector name', method: 'GET', url: '/api/v1/namespaces/ns/configmaps?fieldSelector=metadata.name%3Dx', expected: { verb: 'list', name: 'x', pathName: '' } },
    { name: 'namespace object', method: 'DELETE', url: '/api/v1/namespaces/foo', expected: { resource: 'namespaces', name: 'foo', namespace: 'foo', verb: 'delete' } },
    { name: 'namespace finalize', method: 'PUT', url: '/api/v1/namespaces/foo/finalize', expected: { resource: 'namespaces', name: 'foo', subresource: 'finalize', verb: 'update' } },
    { name: 'group subresource', method: 'PUT', url: '/apis/certificates.k8s.io/v1/certificatesigningrequests/c/approval', expected: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', name: 'c', subresource: 'approval', verb: 'update' } },
    { name: 'deletecollection', method: 'DELETE', url: '/api/v1/namespaces/ns/secrets', expected: { verb: 'deletecollection' } },
    { name: 'patch', method: 'PATCH', url: '/apis/g.io/v1/things/t', expected: { verb: 'patch', group: 'g.io' } },
    { name: 'too many segments', method: 'GET', url: '/api/v1/namespaces/ns/configmaps/a/b/c', expected: { extraSegments: true } },
    { name: 'discovery /apis/g', method: 'GET', url: '/apis/g.io', expected: { kind: 'nonResource', discovery: { prefix: 'apis', group: 'g.io' } } },
    { name: 'discovery /api/v1', method: 'GET', url: '/api/v1', expected: { kind: 'nonResource', discovery: { prefix: 'api', version: 'v1' } } },
    { name: 'non-resource', method: 'HEAD', url: '/healthz', expected: { kind: 'nonResource', path: '/healthz', verb: 'get' } },
  ];
  for (const c of cases) {
    it(`should parse ${c.name}`, () => {
      const u = new URL(c.url, 'https://x');
      const info = parseRequestInfo(c.method, u.pathname, u.searchParams) as unknown as Record<string, unknown>;
      for (const [k, v] of Object.entries(c.expected)) assert.deepEqual(info[k], v, k);
    });
  }
  it('should take the name from a padded field selector in linear time', () => {
    const sel = (v: string): unknown => (parseRequestInfo('GET', '/api/v1/namespaces/ns/configmaps', new URLSearchParams({ fieldSelector: v })) as unknown as Record<string, unknown>)['name'];
    assert.equal(sel(' metadata.name == x '), 'x');
    assert.equal(sel('a=b, metadata.name=x\n'), 'x');
    assert.equal(sel('metadata.name=x\ny'), '');
    const started = performance.now();
    assert.equal(sel(`metadata.name=x${' '.repeat(100_000)}y`), `x${' '.repeat(100_000)}y`);
    assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
  });
  it('should parse Go booleans', () => {
    for (const t of ['1', 't', 'T', 'true', 'TRUE', 'True']) assert.equal(parseBool(t, 'x'), true);
    for (const f of ['0', 'f', 'F', 'false', 'FALSE', 'False']) assert.equal(parseBool(f, 'x'), false);
    assert.equal(parseBool(null, 'x'), undefined);
    assert.throws(() => parseBool('yes', 'x'));
  });
});

describe('decodePathSegment', () => {
  it('should decode escapes, turning bytes that are not UTF-8 into U+FFFD instead of failing', () => {
    assert.equal(decodePathSegment('a%2Fb%20c'), 'a/b c');
    assert.equal(decodePathSegment('%C3%A9t%C3%A9'), 'été');
    assert.equal(decodePathSegment('%ff%fe'), '\ufffd\ufffd');
    assert.equal(parseRequestInfo('GET', '/api/v1/namespaces/%ff%fe/configmaps', new URLSearchParams()).kind, 'resource');
  });

  it('should refuse a malformed escape with a 400 Status', () => {
    for (const bad of ['%', '%f', '%zz', 'a%g1']) {
      assert.throws(() => decodePathSegment(bad), (e: unknown) => e instanceof ApiError && e.code === 400 && /^invalid URL escape "%/.test(e.message), bad);
    }
  });
});
