// The client-side rate limit (`--kube-api-qps` / `--kube-api-burst`) over HTTPS: a burst goes out
// at once, then requests are spaced at qps.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createKubeClient, resourceTypes as R } from '../../src/client/index.js';
import { startTestApiServer } from '../helpers/embedded-server.js';

test('should send `burst` requests at once, then `qps` per second', async (t) => {
  const srv = await startTestApiServer();
  t.after(() => srv.stop());
  const client = createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath }, { rateLimit: { qps: 10, burst: 2 } });
  t.after(() => client.close());
  const start = Date.now();
  await Promise.all([1, 2].map(() => client.resource(R.namespaces).list()));
  assert.ok(Date.now() - start < 250, 'the burst is not delayed');
  const next = Date.now();
  await Promise.all([1, 2, 3].map(() => client.resource(R.namespaces).list()));
  // Three more tokens at 10 per second: the last waits about 300 ms.
  assert.ok(Date.now() - next >= 250, `spaced: ${Date.now() - next} ms`);
});
