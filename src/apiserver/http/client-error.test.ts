import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rejectionFor, rejectionResponse } from './client-error.js';

const err = (code: string, reason?: string): Error & { code: string; reason?: string } => Object.assign(new Error(code), { code, ...(reason ? { reason } : {}) });

describe('rejectionFor', () => {
  const cases: { name: string; input: Error & { code?: string }; expected: { code: number; reason: string } | undefined }[] = [
    { name: 'oversized headers', input: err('HPE_HEADER_OVERFLOW'), expected: { code: 431, reason: 'RequestEntityTooLarge' } },
    { name: 'chunk extensions too long', input: err('HPE_CHUNK_EXTENSIONS_OVERFLOW'), expected: { code: 413, reason: 'RequestEntityTooLarge' } },
    { name: 'headers too slow', input: err('ERR_HTTP_REQUEST_TIMEOUT'), expected: { code: 408, reason: 'Timeout' } },
    { name: 'malformed request', input: err('HPE_INVALID_HEADER_TOKEN', 'Invalid header token'), expected: { code: 400, reason: 'BadRequest' } },
    { name: 'TLS handshake timeout: nothing to write', input: err('ERR_TLS_HANDSHAKE_TIMEOUT'), expected: undefined },
    { name: 'peer reset: nothing to write', input: err('ECONNRESET'), expected: undefined },
  ];
  for (const c of cases) {
    it(`should map ${c.name}`, () => {
      const r = rejectionFor(c.input, { maxHeaderBytes: 16384 });
      assert.deepEqual(r && { code: r.code, reason: r.reason }, c.expected);
    });
  }
  it('should name the parser reason and the header limit', () => {
    assert.match(rejectionFor(err('HPE_INVALID_METHOD', 'Invalid method encountered'), { maxHeaderBytes: 1 })!.message, /Invalid method encountered/);
    assert.match(rejectionFor(err('HPE_HEADER_OVERFLOW'), { maxHeaderBytes: 16384 })!.message, /16384 bytes/);
  });
});

describe('rejectionResponse', () => {
  it('should be a complete HTTP/1.1 response with a Status body that closes the connection', () => {
    const text = rejectionResponse({ code: 431, reason: 'RequestEntityTooLarge', message: 'too big' });
    const [head, body] = text.split('\r\n\r\n');
    assert.match(head!, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    assert.match(head!, /\r\nConnection: close(\r\n|$)/);
    assert.match(head!, new RegExp(`\\r\\nContent-Length: ${Buffer.byteLength(body!)}(\\r\\n|$)`));
    assert.deepEqual(JSON.parse(body!), { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message: 'too big', reason: 'RequestEntityTooLarge', code: 431 });
  });
});
