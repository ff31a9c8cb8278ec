import 'reflect-metadata';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSelfSignedCa } from '../util/x509.js';
import { sharedSecureContext } from './secure-contexts.js';

const ca = (commonName: string): ReturnType<typeof createSelfSignedCa> =>
  createSelfSignedCa({ commonName, notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 3_600_000) });

test('clients holding the same TLS material share one context; other material gets its own', async () => {
  const a = await ca('a');
  const b = await ca('b');
  // Equal texts in distinct strings, as two agents loading one bootstrap kubeconfig each have.
  const copy = (s: string): string => (' ' + s).slice(1);
  const first = sharedSecureContext({ caPem: a.certPem, certPem: a.certPem, keyPem: a.keyPem });
  assert.equal(sharedSecureContext({ caPem: copy(a.certPem), certPem: copy(a.certPem), keyPem: copy(a.keyPem) }), first);
  assert.notEqual(sharedSecureContext({ caPem: a.certPem, certPem: b.certPem, keyPem: b.keyPem }), first);
  assert.notEqual(sharedSecureContext({ caPem: a.certPem }), first, 'a CA alone is other material');
  assert.notEqual(sharedSecureContext({ caPem: a.certPem, certPem: a.certPem }), sharedSecureContext({ caPem: a.certPem + a.certPem }), 'parts are kept apart');
});

test('material that makes no context is refused as createSecureContext refuses it, and not remembered', async () => {
  const a = await ca('a');
  const b = await ca('b');
  assert.throws(() => sharedSecureContext({ certPem: a.certPem, keyPem: b.keyPem }));
  assert.throws(() => sharedSecureContext({ certPem: a.certPem, keyPem: b.keyPem }));
});
