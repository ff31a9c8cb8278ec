import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FakeResourceClient } from './fake-resource-client.js';
import { createInformerFactory } from './informer-factory.js';
import { resourceTypes as R } from './resource-types.js';
import type { KubeClient, ResourceType } from './types.js';

test('should share one informer per (type, namespace, selectors) and start late ones', async () => {
  const made: Array<FakeResourceClient> = [];
  const client = {
    server: 'https://x',
    resource: (type: ResourceType, ns?: string) => {
      const f = new FakeResourceClient(type, ns);
      f.answerList({ items: [], resourceVersion: '1' });
      made.push(f);
      return f;
    },
  } as unknown as KubeClient;
  const factory = createInformerFactory(client);
  const a = factory.informerFor(R.leases, { namespace: 'c1' });
  assert.equal(factory.informerFor(R.leases, { namespace: 'c1' }), a);
  assert.notEqual(factory.informerFor(R.leases, { namespace: 'c2' }), a);
  assert.notEqual(factory.informerFor(R.leases, { namespace: 'c1', labelSelector: 'x' }), a);
  assert.equal(factory.informerFor(R.managedClusters, { namespace: 'ignored' }), factory.informerFor(R.managedClusters));
  assert.equal(made.length, 4);
  const ac = new AbortController();
  factory.start(ac.signal);
  await factory.waitForSync(ac.signal);
  const late = factory.informerFor(R.secrets, { namespace: 'n' });
  await late.waitForSync(ac.signal);
  assert.ok(late.hasSynced());
  assert.equal(made.at(-1)?.namespace, 'n');
  assert.equal(made[0]?.lists[0]?.labelSelector, undefined);
  assert.equal(made[2]?.lists[0]?.labelSelector, 'x');
  ac.abort();
});
