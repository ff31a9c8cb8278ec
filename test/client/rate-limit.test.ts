// The client-side rate limit (`--kube-api-qps` / `--kube-api-burst`) over HTTPS: a burst goes out
// at once, then requests are spaced at qps.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createKubeClient, resourceTypes as R } from '../../src/client/index.js';
import { startTestApiServer } from '../helpers/embedded-server.js';

test('should space requests at `qps` once the burst is spent', async (t) => {
  const srv = await startTestApiServer();
  t.after(() => srv.stop());
  const client = createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath }, { rateLimit: { qps: 4, burst: 1 } });
  t.after(() => client.close());
  const start = Date.now();
  // One token at once, then one every 250 ms: the fourth request leaves about 750 ms later.
  await Promise.all([1, 2, 3, 4].map(() => client.resource(R.namespaces).list()));
  assert.ok(Date.now() - start >= 700, `spaced: ${Date.now() - start} ms`);
});
