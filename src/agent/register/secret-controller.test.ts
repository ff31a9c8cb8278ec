import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Condition } from '../../api/meta.js';
import type { Secret } from '../../api/core.js';
import { resourceTypes } from '../../client/resource-types.js';
import { nullLogger } from '../../util/logger.js';
import type { ProcessOutcome, RegisterDriver } from './driver.js';
import { fakeInformer, fakeResourceClient } from './fake-clients.js';
import { createRegisterSecretController, recheckDelay } from './secret-controller.js';

const NS = 'testns';
const NAME = 'testsecret';
const cond: Condition = { type: 'ClusterCertificateRotated', status: 'True', reason: 'ClientCertificateUpdated', message: 'ok' };

function driver(outcomes: ProcessOutcome[]): RegisterDriver & { calls: number } {
  const d = {
    calls: 0,
    async process(_n: string, secret: Secret): Promise<ProcessOutcome> {
      const o = outcomes[Math.min(d.calls, outcomes.length - 1)]!;
      d.calls++;
      return o.secret ? { ...o, secret: { ...secret, data: { ...secret.data, ...o.secret.data } } } : o;
    },
  };
  return d;
}

function setup(initial: Secret[], outcomes: ProcessOutcome[], additionalData: Record<string, Buffer> = {}) {
  const secrets = fakeResourceClient<Secret>(resourceTypes.secrets, NS, initial);
  const written: Condition[] = [];
  const d = driver(outcomes);
  const c = createRegisterSecretController({
    name: 'test',
    secretNamespace: NS,
    secretName: NAME,
    additionalData,
    driver: d,
    statusUpdater: async (x) => void written.push(x),
    secrets,
    secretInformer: fakeInformer<Secret>(),
    resyncMs: 0,
    log: nullLogger(),
  });
  return { c, secrets, written, d };
}

const signal = new AbortController().signal;
const gen: ProcessOutcome = { secret: { metadata: {}, data: { 'tls.crt': 'Y2VydA==' } }, condition: cond };

test('should create the secret and then write the condition (create secret without additional data)', async () => {
  const s = setup([], [gen]);
  await s.c.sync(signal);
  assert.deepEqual(s.secrets.actions, ['get', 'create']);
  assert.deepEqual(s.written, [cond]);
});

test('should update an existing secret (update secret without additional data)', async () => {
  const s = setup([{ metadata: { namespace: NS, name: NAME, resourceVersion: '1' }, data: { keep: 'eA==' } }], [gen]);
  await s.c.sync(signal);
  assert.deepEqual(s.secrets.actions, ['get', 'update']);
  assert.deepEqual(Object.keys(s.secrets.objects.get(NAME)!.data!).sort(), ['keep', 'tls.crt']);
});

test('should do nothing when the driver generates no secret', async () => {
  const s = setup([], [{}]);
  await s.c.sync(signal);
  assert.deepEqual(s.secrets.actions, ['get']);
  assert.deepEqual(s.written, []);
});

test('should look again at the rotation time the driver names, when that comes before the resync', async () => {
  const s = setup([], [{ recheckAfterMs: 42_000 }]);
  assert.equal(await s.c.sync(signal), 42_000);
  assert.equal(recheckDelay(42_000, 300_000), 42_000);
  assert.equal(recheckDelay(400_000, 300_000), undefined, 'the resync comes first');
  assert.equal(recheckDelay(42_000, 0), 42_000, 'no resync at all');
  assert.equal(recheckDelay(0, 300_000), 1000, 'never a busy loop');
  assert.equal(recheckDelay(undefined, 300_000), undefined);
});

test('should add the additional secret data', async () => {
  const s = setup([], [gen], { 'cluster-name': Buffer.from('cluster1'), 'agent-name': Buffer.from('agent1'), kubeconfig: Buffer.from('kc') });
  await s.c.sync(signal);
  const data = s.secrets.objects.get(NAME)!.data!;
  assert.equal(Buffer.from(data['cluster-name']!, 'base64').toString(), 'cluster1');
  assert.equal(Buffer.from(data['agent-name']!, 'base64').toString(), 'agent1');
  assert.equal(Buffer.from(data['kubeconfig']!, 'base64').toString(), 'kc');
});

test('should retry a failed save without running the driver again, and skip the condition then', async () => {
  const s = setup([], [gen, { error: new Error('must not be called') }]);
  s.secrets.failNext('create', 500);
  await assert.rejects(s.c.sync(signal), /unable to save secret "testns\/testsecret"/);
  assert.equal(s.d.calls, 1);
  await s.c.sync(signal);
  assert.equal(s.d.calls, 1, 'driver not called again');
  assert.deepEqual(s.secrets.actions, ['get', 'create', 'get', 'create']);
  assert.deepEqual(s.written, [], 'condition of the first attempt is not written');
});

test('should write a failure condition right away when the driver fails', async () => {
  const failed: Condition = { type: 'ClusterCertificateRotated', status: 'False', reason: 'ClientCertificateUpdateFailed', message: 'Failed to create CSR boom' };
  const s = setup([], [{ condition: failed, error: new Error('boom') }]);
  await assert.rejects(s.c.sync(signal), /boom/);
  assert.deepEqual(s.written, [failed]);
  assert.deepEqual(s.secrets.actions, ['get']);
});

test('should read the secret from the cache while the driver awaits its credential, and live again after a failed save', async () => {
  // The cache lags: the server already has the secret (rv 2), the cache still the older copy (rv 1).
  const onServer: Secret = { metadata: { namespace: NS, name: NAME, resourceVersion: '2' }, data: { keep: 'eA==' } };
  const cachedCopy: Secret = { metadata: { namespace: NS, name: NAME, resourceVersion: '1' }, data: { keep: 'eA==' } };
  const secrets = fakeResourceClient<Secret>(resourceTypes.secrets, NS, [onServer]);
  const informer = fakeInformer<Secret>(() => [cachedCopy]);
  let awaiting = true;
  const d = Object.assign(driver([gen]), { awaitingCredential: () => awaiting });
  const c = createRegisterSecretController({
    name: 'test', secretNamespace: NS, secretName: NAME, additionalData: {}, driver: d,
    statusUpdater: async () => {}, secrets, secretInformer: informer, resyncMs: 0, log: nullLogger(),
  });
  secrets.failNext('update', 409);
  await assert.rejects(c.sync(signal), /unable to save secret/);
  assert.deepEqual(secrets.actions, ['update'], 'no GET: the cached copy was the base');
  assert.equal(cachedCopy.data!['tls.crt'], undefined, 'the cached object itself is not written into');
  await c.sync(signal);
  assert.deepEqual(secrets.actions, ['update', 'get', 'update'], 'the retry reads the secret live');
  assert.equal(secrets.objects.get(NAME)!.data!['tls.crt'], 'Y2VydA==');
  awaiting = false;
  await c.sync(signal);
  assert.deepEqual(secrets.actions.slice(3), ['get', 'update'], 'with no credential awaited, read live as OCM does');
});
