import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileConfigSource, KubeconfigError, loadKubeconfigFile, loadKubeconfigString } from './kubeconfig.js';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

function doc(user: string, extraCluster = ''): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'current-context: ctx',
    'contexts:',
    '- name: ctx',
    '  context: {cluster: c, user: u, namespace: ns1}',
    '- name: other',
    '  context: {cluster: c2, user: u}',
    'clusters:',
    '- name: c',
    `  cluster: {server: "https://h:6443/", certificate-authority-data: ${b64('CA')}${extraCluster}}`,
    '- name: c2',
    '  cluster: {server: "https://h2:6443", insecure-skip-tls-verify: true}',
    'users:',
    '- name: u',
    `  user: ${user}`,
  ].join('\n');
}

test('should load inline data, tokens and contexts', () => {
  const cfg = loadKubeconfigString(doc(`{client-certificate-data: ${b64('CERT')}, client-key-data: ${b64('KEY')}}`));
  assert.deepEqual(cfg, { server: 'https://h:6443', caPem: 'CA', certPem: 'CERT', keyPem: 'KEY', contextName: 'ctx', namespace: 'ns1' });
  const tok = loadKubeconfigString(doc('{token: abc}'), { context: 'other' });
  assert.deepEqual(tok, { server: 'https://h2:6443', insecureSkipTlsVerify: true, token: 'abc', contextName: 'other' });
});

test('should resolve file references against the kubeconfig directory and report errors', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-'));
  try {
    writeFileSync(join(dir, 'tls.crt'), 'CERTFILE');
    writeFileSync(join(dir, 'tls.key'), 'KEYFILE');
    writeFileSync(join(dir, 'token'), 'tokfile\n');
    writeFileSync(join(dir, 'kc'), doc('{client-certificate: tls.crt, client-key: tls.key, tokenFile: token}'));
    const loaded = loadKubeconfigFile(join(dir, 'kc'));
    assert.equal(loaded.config.certPem, 'CERTFILE');
    assert.equal(loaded.config.keyPem, 'KEYFILE');
    assert.equal(loaded.config.token, 'tokfile');
    assert.deepEqual(loaded.files, [join(dir, 'kc'), join(dir, 'tls.crt'), join(dir, 'tls.key'), join(dir, 'token')]);
    assert.throws(() => loadKubeconfigString(doc('{token: a}'), { context: 'missing' }), /kubeconfig does not contains context: missing/);
    assert.throws(() => loadKubeconfigString(doc('{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}}')), /exec credential plugins are not supported/);
    writeFileSync(join(dir, 'bad'), doc('{client-certificate: nope.crt, client-key: tls.key}'));
    assert.throws(() => loadKubeconfigFile(join(dir, 'bad')), KubeconfigError);
    assert.throws(() => loadKubeconfigFile(join(dir, 'absent')), /cannot read kubeconfig/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('should reload when a referenced file changes and keep the last good config on failure', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kc-'));
  try {
    writeFileSync(join(dir, 'tls.crt'), 'C1');
    writeFileSync(join(dir, 'tls.key'), 'K1');
    writeFileSync(join(dir, 'kc'), doc('{client-certificate: tls.crt, client-key: tls.key}'));
    const results: boolean[] = [];
    const src = fileConfigSource(join(dir, 'kc'), { onReload: (r) => results.push(r.ok) });
    assert.equal(src.current().certPem, 'C1');
    assert.equal(src.current().certPem, 'C1');
    assert.deepEqual(results, [true], 'unchanged files are not re-read');
    writeFileSync(join(dir, 'tls.crt'), 'C2-longer');
    assert.equal(src.current().certPem, 'C2-longer');
    writeFileSync(join(dir, 'kc'), 'not: [valid');
    assert.equal(src.current().certPem, 'C2-longer', 'a broken kubeconfig keeps the previous config');
    assert.deepEqual(results, [true, true, false]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
