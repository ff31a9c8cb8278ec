import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadKubeconfigString } from '../client/kubeconfig.js';
import { bootstrapTokenSecret } from '../hub/bootstrap-token.js';
import type { Secret } from '../api/core.js';
import { pickBootstrapToken, renderBootstrapKubeconfig } from './hub-token.js';

const NOW = Date.parse('2025-01-01T00:00:00Z');

/** The secret as the API server returns it: stringData folded into base64 data. */
function stored(id: string, secret: string, expiresAtMs: number, groups?: string): Secret {
  const s = bootstrapTokenSecret(id, secret, expiresAtMs);
  const string = { ...s.stringData!, ...(groups !== undefined ? { 'auth-extra-groups': groups } : {}) };
  const { stringData: _omit, ...rest } = s;
  return { ...rest, data: Object.fromEntries(Object.entries(string).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) };
}

test('picks the token of the bootstrap group with the most time left; skips expired and other groups', () => {
  const secrets = [
    stored('aaaaaa', 'aaaaaaaaaaaaaaaa', NOW + 3600_000),
    stored('bbbbbb', 'bbbbbbbbbbbbbbbb', NOW + 7200_000),
    stored('cccccc', 'cccccccccccccccc', NOW + 99 * 3600_000, 'system:bootstrappers:kubeadm:default-node-token'),
    stored('dddddd', 'dddddddddddddddd', NOW - 1000),
  ];
  assert.deepEqual(pickBootstrapToken(secrets, NOW, 60_000), { token: 'bbbbbb.bbbbbbbbbbbbbbbb', expiresAtMs: NOW + 7200_000 });
  // Nothing with enough time left.
  assert.equal(pickBootstrapToken(secrets, NOW, 3 * 3600_000), undefined);
});

test('the bootstrap kubeconfig loads back to the hub URL, CA and token', () => {
  const text = renderBootstrapKubeconfig({ server: 'https://hub:6443', caPem: '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n', token: 'abcdef.0123456789abcdef' });
  const cfg = loadKubeconfigString(text);
  assert.equal(cfg.server, 'https://hub:6443');
  assert.equal(cfg.token, 'abcdef.0123456789abcdef');
  assert.match(cfg.caPem ?? '', /BEGIN CERTIFICATE/);
});
