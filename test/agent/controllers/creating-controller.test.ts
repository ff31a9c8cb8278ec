// The agent's creating controller against a real hub: creates the ManagedCluster, updates an existing
// one only when its client configs change, keeps retrying a failing hub without long waits, and
// says when the cluster exists.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { ApiStatusError, NetworkError, statusFromCode } from '../../../src/client/errors.js';
import { createManualClock } from '../../../src/client/manual-clock.js';
import { nullLogger } from '../../../src/util/logger.js';
import { createCreatingController } from '../../../src/agent/managedcluster/index.js';
import type { KubeClient, ResourceClient } from '../../../src/client/types.js';
import { createAcceptedCluster, startClusters, type Clusters } from './clusters.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
before(async () => {
  env = await startClusters({ spoke: false });
});
after(async () => {
  await env?.stop();
});

/**
 * The hub admin client whose ManagedCluster `get` and `create` are handed to `wrap`, which returns
 * a replacement or undefined (the method as it is).
 */
function interceptClusters(wrap: (rc: ResourceClient<ManagedCluster>, method: 'get' | 'create') => unknown): KubeClient {
  return new Proxy(env.hubAdmin, {
    get(target, prop, receiver) {
      if (prop !== 'resource') return Reflect.get(target, prop, receiver) as unknown;
      return (t: Parameters<typeof target.resource>[0]) => {
        const rc = target.resource<ManagedCluster>(t);
        return new Proxy(rc, {
          get(rt, p, rr) {
            const replaced = p === 'get' || p === 'create' ? wrap(rt, p) : undefined;
            return replaced ?? (Reflect.get(rt, p, rr) as unknown);
          },
        });
      };
    },
  });
}

const ca = Buffer.from('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n');

test('create a new cluster at once (no read first): client config {url, caBundle} and only the agent-prefixed annotation', async () => {
  let gets = 0;
  const counting = interceptClusters((_rc, method) => {
    if (method === 'get') gets++;
    return undefined;
  });
  const c = createCreatingController({
    clusterName: 'create-new',
    bootstrapClient: counting,
    clusterAnnotations: { 'agent.open-cluster-management.io/test': 'true', 'other.io/x': 'dropped' },
    spokeExternalServerUrls: ['https://spoke.example.com:6443'],
    spokeCaBundle: ca,
    log: nullLogger(),
  });
  const ac = new AbortController();
  const running = c.run(ac.signal);
  const mc = await waitFor(async () => {
    try {
      return await env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters).get('create-new');
    } catch {
      return undefined;
    }
  });
  ac.abort();
  await running;
  assert.equal(gets, 0, 'the first sync of a new cluster creates it without reading it first');
  assert.deepEqual(mc.spec?.managedClusterClientConfigs, [{ url: 'https://spoke.example.com:6443', caBundle: ca.toString('base64') }]);
  assert.deepEqual(mc.metadata.annotations, { 'agent.open-cluster-management.io/test': 'true' });
  assert.equal(mc.spec?.hubAcceptsClient, false);

  // The fixture that plays the hub admin accepts the cluster the agent created, keeping its spec.
  const accepted = await createAcceptedCluster(env.hubAdmin, 'create-new', { leaseDurationSeconds: 7 });
  assert.equal(accepted.spec?.hubAcceptsClient, true);
  assert.equal(accepted.spec?.leaseDurationSeconds, 7);
  assert.deepEqual(accepted.spec?.managedClusterClientConfigs, mc.spec?.managedClusterClientConfigs);
  assert.equal(accepted.status?.conditions?.find((c) => c.type === 'HubAcceptedManagedCluster')?.status, 'True');
});

test('an existing cluster is updated only when the number of client configs changes', async () => {
  const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  await clusters.create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name: 'existing' }, spec: { hubAcceptsClient: true } });
  const before1 = await clusters.get('existing');

  // same count (0 URLs): nothing written, annotations are create-only
  const noop = createCreatingController({ clusterName: 'existing', bootstrapClient: env.hubAdmin, clusterAnnotations: { 'agent.open-cluster-management.io/a': 'b' }, log: nullLogger() });
  await noop.sync(new AbortController().signal);
  assert.equal((await clusters.get('existing')).metadata.resourceVersion, before1.metadata.resourceVersion);

  const c = createCreatingController({ clusterName: 'existing', bootstrapClient: env.hubAdmin, spokeExternalServerUrls: ['https://a:6443', 'https://b:6443'], spokeCaBundle: ca, log: nullLogger() });
  await c.sync(new AbortController().signal);
  const after1 = await clusters.get('existing');
  assert.deepEqual(after1.spec?.managedClusterClientConfigs?.map((x) => x.url), ['https://a:6443', 'https://b:6443']);
  assert.equal(after1.spec?.hubAcceptsClient, true, 'hubAcceptsClient never modified');
  assert.equal(after1.metadata.annotations?.['agent.open-cluster-management.io/a'], undefined);

  // again: unchanged count → no write
  await c.sync(new AbortController().signal);
  assert.equal((await clusters.get('existing')).metadata.resourceVersion, after1.metadata.resourceVersion);
});

test('a hub that fails the create and the get is retried with backoff capped at 30 s; done resolves only once the cluster exists', async () => {
  const clock = createManualClock();
  let failuresLeft = 16; // uncapped, the 16th retry would wait 5 ms × 2^15 ≈ 164 s
  let calls = 0;
  let creates = 0;
  // A hub starved by a join storm: the ManagedCluster create and get time out or fail, again and again.
  const starvedHub = interceptClusters((rc, method) => async (arg: string & ManagedCluster, o: { signal?: AbortSignal }) => {
    calls++;
    if (method === 'create') creates++;
    if (failuresLeft-- > 0) throw calls % 2 === 0 ? new NetworkError('request timed out after 30000 ms') : new ApiStatusError(statusFromCode(503));
    return method === 'get' ? rc.get(arg, o) : rc.create(arg, o);
  });
  const c = createCreatingController({ clusterName: 'create-after-failures', bootstrapClient: starvedHub, log: nullLogger(), clock, resyncMs: 3_600_000 });
  let done = false;
  void c.done.then(() => (done = true));
  const ac = new AbortController();
  const running = c.run(ac.signal);
  const waits: number[] = [];
  for (let attempt = 1; attempt <= 16; attempt++) {
    // The retry is the earliest timer (the resync is an hour away).
    await waitFor(() => calls === attempt && clock.nextDue() !== undefined && clock.nextDue()! - clock.now() < 3_600_000);
    assert.equal(done, false, 'not done while the hub fails');
    waits.push(clock.nextDue()! - clock.now());
    clock.advance(waits.at(-1)!);
  }
  await c.done;
  // The first sync creates at once; the retries read the cluster first, then create it.
  assert.equal(calls, 18);
  assert.equal(creates, 2);
  assert.equal(Math.max(...waits), 30_000, `retry waits ${waits.join(', ')} ms`);
  assert.deepEqual(waits.slice(0, 3), [5, 10, 20]);
  const mc = await env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters).get('create-after-failures');
  assert.equal(mc.metadata.name, 'create-after-failures');
  ac.abort();
  await running;
});

test('done resolves when the bootstrap identity may no longer read the cluster (nothing left to do)', async () => {
  const forbidden = new Proxy(env.hubAdmin, {
    get(target, prop, receiver) {
      if (prop !== 'resource') return Reflect.get(target, prop, receiver) as unknown;
      const refuse = async (): Promise<never> => {
        throw new ApiStatusError(statusFromCode(403));
      };
      return () => ({ get: refuse, create: refuse });
    },
  });
  const c = createCreatingController({ clusterName: 'forbidden', bootstrapClient: forbidden, log: nullLogger() });
  const ac = new AbortController();
  const running = c.run(ac.signal);
  await c.done;
  ac.abort();
  await running;
});
