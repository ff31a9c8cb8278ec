// The fuzz suite's response checks catch what they must and accept what kube-apiserver does.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FuzzRequest, FuzzResponse } from './http-exchange.js';
import { parseFirstResponse } from './http-exchange.js';
import { checkRawResponse, checkResponse } from './response-oracle.js';
import { signatureOf } from './fuzz-runner.js';

const req = (o: Partial<FuzzRequest> = {}): FuzzRequest => ({ method: 'GET', path: '/api/v1/namespaces/default/configmaps', query: '', headers: {}, ...o });
const res = (status: number | undefined, body: unknown, o: Partial<FuzzResponse> = {}): FuzzResponse => ({
  ...(status !== undefined ? { status } : {}),
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  truncated: false,
  timedOut: false,
  ...o,
});
const status = (code: number, reason = 'BadRequest'): Record<string, unknown> => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'm', reason, code });
const kinds = (r: FuzzResponse, q: FuzzRequest = req()): string[] => checkResponse(q, r).map((v) => v.kind);

describe('fuzz response oracle', () => {
  const cases: { name: string; req?: FuzzRequest; res: FuzzResponse; expected: string[] }[] = [
    { name: 'a list', res: res(200, { kind: 'ConfigMapList', apiVersion: 'v1', items: [] }), expected: [] },
    { name: 'a proper 404 Status', res: res(404, status(404, 'NotFound')), expected: [] },
    { name: 'a 500', res: res(500, status(500, 'InternalError')), expected: ['server-error'] },
    { name: "kube-apiserver's 504 for a future resourceVersion", req: req({ query: 'resourceVersion=999' }), res: res(504, status(504, 'Timeout')), expected: [] },
    { name: 'a 504 without a resourceVersion', res: res(504, status(504, 'Timeout')), expected: ['server-error'] },
    { name: 'a Status whose code differs from HTTP', res: res(400, status(422, 'Invalid')), expected: ['bad-status'] },
    { name: 'a Status without reason', res: res(403, { ...status(403), reason: '' }), expected: ['bad-status'] },
    { name: 'an error without body', res: res(431, ''), expected: ['bare-error'] },
    { name: 'an error in plain text', res: res(400, 'Bad Request', { headers: { 'content-type': 'text/plain' } }), expected: ['bad-status'] },
    { name: 'an object without kind', res: res(200, { items: [] }), expected: ['malformed-object'] },
    { name: '/api without apiVersion', req: req({ path: '/api' }), res: res(200, { kind: 'APIVersions', versions: ['v1'] }), expected: [] },
    { name: 'health text', req: req({ path: '/api/../healthz' }), res: res(200, 'ok', { headers: { 'content-type': 'text/plain' } }), expected: [] },
    { name: 'a YAML object', res: res(200, 'kind: ConfigMap\napiVersion: v1\n', { headers: { 'content-type': 'application/yaml' } }), expected: [] },
    { name: 'a HEAD error without body', req: req({ method: 'HEAD' }), res: res(404, ''), expected: [] },
    { name: 'no answer', res: res(undefined, '', { error: 'ECONNRESET' }), expected: ['no-response'] },
    { name: 'a hang', res: res(undefined, '', { timedOut: true }), expected: ['hang'] },
    { name: 'watch events', res: res(200, '{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1"}}\n{"type":"MOD', { truncated: true }), expected: [] },
    { name: 'a bad watch event', res: res(200, '{"type":"NOPE","object":{}}\n', { truncated: true }), expected: ['bad-watch-event'] },
    { name: 'a watch ERROR without Status', res: res(200, '{"type":"ERROR","object":{"kind":"Status"}}\n', { truncated: true }), expected: ['bad-watch-event'] },
    {
      name: 'an unknown field accepted under fieldValidation=Strict',
      req: req({ method: 'POST', query: 'fieldValidation=Strict', body: Buffer.from('{"unknownTopLevel":1}') }),
      res: res(201, { kind: 'ConfigMap', apiVersion: 'v1' }),
      expected: ['strict-accepted-unknown-field'],
    },
    { name: 'an unknown field accepted under Warn', req: req({ method: 'POST', query: 'fieldValidation=Warn', body: Buffer.from('{"unknownTopLevel":1}') }), res: res(201, { kind: 'ConfigMap', apiVersion: 'v1' }), expected: [] },
    { name: 'a request Node refused to send', res: res(undefined, '', { notSent: 'invalid header' }), expected: [] },
  ];
  for (const c of cases) {
    it(`judges ${c.name}`, () => {
      assert.deepEqual(kinds(c.res, c.req), c.expected);
    });
  }

  it('judges raw answers: Status errors pass; bare ones, drops and 5xx do not', () => {
    const raw = (text: string, closed = false) => {
      const bytes = Buffer.from(text, 'latin1');
      const p = parseFirstResponse(bytes, closed);
      return { bytes, headers: p?.headers ?? {}, body: p?.body ?? Buffer.alloc(0), closed, timedOut: false, ...(p ? { status: p.status } : {}) };
    };
    const body = JSON.stringify(status(400));
    assert.deepEqual(checkRawResponse(raw(`HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`)), []);
    assert.deepEqual(checkRawResponse(raw('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n', true)).map((v) => v.kind), ['raw-bare-error']);
    assert.deepEqual(checkRawResponse(raw('HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n')).map((v) => v.kind), ['raw-bare-error']);
    assert.deepEqual(checkRawResponse(raw('', true)).map((v) => v.kind), ['raw-dropped']);
    assert.deepEqual(checkRawResponse(raw('HTTP/1.1 500 x\r\ncontent-length: 0\r\n\r\n')).map((v) => v.kind), ['raw-server-error', 'raw-bare-error']);
  });

  it('groups details that differ only in numbers, quotes and keys', () => {
    assert.equal(signatureOf('HTTP 500 "a" /core/configmaps/ns/x@12'), signatureOf('HTTP 501 "b" /core/configmaps/other/y@3'));
    assert.notEqual(signatureOf('HTTP 500 URI malformed'), signatureOf('HTTP 500 Invalid string length'));
  });
});
