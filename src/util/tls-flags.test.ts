import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTlsServingFlags, TlsFlagError } from './tls-flags.js';

test('should default to TLS 1.2 and Node ciphers when no flag is given', () => {
  assert.deepEqual(parseTlsServingFlags('', ''), { minVersion: 'TLSv1.2' });
});

test('should map Go version names and IANA suite names', () => {
  assert.deepEqual(parseTlsServingFlags('VersionTLS13', ''), { minVersion: 'TLSv1.3' });
  const f = parseTlsServingFlags('VersionTLS12', 'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,TLS_AES_128_GCM_SHA256');
  assert.equal(f.minVersion, 'TLSv1.2');
  assert.match(f.ciphers ?? '', /ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384$/);
  assert.match(f.ciphers ?? '', /^TLS_AES_256_GCM_SHA384:/);
});

test('should refuse unknown versions and suites, naming the flag', () => {
  assert.throws(() => parseTlsServingFlags('VersionTLS10', ''), (e) => e instanceof TlsFlagError && /^--tls-min-version: .*VersionTLS10/.test(e.message));
  assert.throws(() => parseTlsServingFlags('', 'TLS_RSA_WITH_RC4_128_SHA'), (e) => e instanceof TlsFlagError && /^--tls-cipher-suites: .*RC4/.test(e.message));
  assert.throws(() => parseTlsServingFlags('', 'TLS_AES_128_GCM_SHA256'), /no TLS 1.2 cipher suite/);
  assert.deepEqual(parseTlsServingFlags('VersionTLS13', 'TLS_AES_128_GCM_SHA256'), { minVersion: 'TLSv1.3' });
});
