import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { CliUsageError } from './usage-error.js';
import { validateWebhookOptions } from './webhook-command.js';

const EXISTING = fileURLToPath(import.meta.url);

test('webhook flags: defaults', () => {
  const o = validateWebhookOptions({ kubeconfig: EXISTING });
  assert.deepEqual(o, { serving: { listen: '0.0.0.0:9443', tls: { minVersion: 'TLSv1.2' } }, kubeconfig: EXISTING, defaultClusterSet: true, logLevel: 'info' });
});

test('webhook flags: certificate files, generated-certificate options and gates', () => {
  const files = validateWebhookOptions({ kubeconfig: EXISTING, tlsCertFile: EXISTING, tlsPrivateKeyFile: EXISTING, tlsMinVersion: 'VersionTLS13' });
  assert.deepEqual(files.serving.tls, { minVersion: 'TLSv1.3', certFile: EXISTING, keyFile: EXISTING });
  const generated = validateWebhookOptions({ kubeconfig: EXISTING, listen: '[::1]:0', writeCaFile: '/tmp/ca.crt', tlsSan: ['svc.ns.svc'], featureGates: ['DefaultClusterSet=false'], logLevel: 'debug' });
  assert.deepEqual(generated, {
    serving: { listen: '[::1]:0', tls: { minVersion: 'TLSv1.2', sans: ['svc.ns.svc'] }, writeCaFile: '/tmp/ca.crt' }, kubeconfig: EXISTING, defaultClusterSet: false, logLevel: 'debug',
  });
});

test('webhook flags: each mistake is one usage error', () => {
  const cases: Array<[Parameters<typeof validateWebhookOptions>[0], RegExp]> = [
    [{ kubeconfig: EXISTING, listen: 'nope' }, /^--listen must be HOST:PORT with a port 0-65535, got "nope"$/],
    [{ kubeconfig: EXISTING, listen: 'h:70000' }, /^--listen must be HOST:PORT/],
    [{ kubeconfig: EXISTING, tlsCertFile: EXISTING }, /^--tls-cert-file and --tls-private-key-file go together$/],
    [{ kubeconfig: EXISTING, tlsPrivateKeyFile: EXISTING }, /^--tls-cert-file and --tls-private-key-file go together$/],
    [{ kubeconfig: EXISTING, tlsCertFile: EXISTING, tlsPrivateKeyFile: EXISTING, writeCaFile: 'x' }, /^--write-ca-file writes the CA of a generated certificate/],
    [{ kubeconfig: EXISTING, tlsCertFile: EXISTING, tlsPrivateKeyFile: EXISTING, tlsSan: ['a'] }, /^--tls-san names the generated certificate/],
    [{ kubeconfig: EXISTING, tlsCertFile: '/nonexistent.crt', tlsPrivateKeyFile: EXISTING }, /^--tls-cert-file \/nonexistent\.crt: no such file$/],
    [{ kubeconfig: EXISTING, featureGates: ['Nope=true'] }, /^--feature-gates: unrecognized feature gate: Nope$/],
    [{ kubeconfig: EXISTING, tlsMinVersion: 'VersionTLS10' }, /^--tls-min-version: unsupported TLS version "VersionTLS10"/],
    [{ kubeconfig: EXISTING, tlsCipherSuites: 'NOPE' }, /^--tls-cipher-suites: unsupported cipher suite "NOPE"/],
    [{ kubeconfig: EXISTING, logLevel: 'loud' }, /^--log-level must be debug, info, warn or error/],
    [{ kubeconfig: '/nonexistent/kubeconfig' }, /^--kubeconfig \/nonexistent\/kubeconfig: no such file$/],
  ];
  for (const [raw, message] of cases) {
    assert.throws(() => validateWebhookOptions(raw), (e: unknown) => e instanceof CliUsageError && message.test(e.message), JSON.stringify(raw));
  }
});

test('webhook flags: outside a pod --kubeconfig is required; in a pod the service account is used', () => {
  assert.throws(() => validateWebhookOptions({}, {}), (e: unknown) => e instanceof CliUsageError && /^--kubeconfig is required outside a pod/.test(e.message));
  const inPod = validateWebhookOptions({}, { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' });
  assert.equal(inPod.kubeconfig, undefined);
});
