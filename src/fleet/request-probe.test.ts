import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { createRequestProbe } from './request-probe.js';

const LEASE = '/apis/coordination.k8s.io/v1/namespaces/c1/leases/managed-cluster-lease';

test('should see HTTP/2 lease requests and watches, which Node 20 publishes on no diagnostics channel', async () => {
  const server = http2.createServer((req, res) => {
    if (req.url.includes('watch=true')) {
      res.writeHead(200);
      res.write('{}\n');
      return; // held open until the client goes
    }
    res.writeHead(req.method === 'PUT' && req.url.endsWith('?fail') ? 500 : 200);
    res.end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const hostPort = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const probe = createRequestProbe(hostPort);
  const session = http2.connect(`http://${hostPort}`);
  const call = async (method: string, path: string): Promise<void> => {
    const s = session.request({ ':method': method, ':path': path }, { endStream: true });
    s.resume();
    await once(s, 'close');
  };
  try {
    await call('GET', LEASE);
    await call('PUT', LEASE);
    await call('PUT', `${LEASE}?fail`);
    const watch = session.request({ ':method': 'GET', ':path': '/api/v1/namespaces?watch=true' }, { endStream: true });
    await once(watch, 'response');
    assert.equal(probe.openWatches(), 1);
    watch.close();
    await once(watch, 'close');
    assert.equal(probe.openWatches(), 0);
    assert.equal(probe.leaseUpdates.count(), 1);
    assert.equal(probe.leaseFailures(), 1);
    assert.deepEqual([...probe.leaseRequestsByCluster()], [['c1', 3]]);
    assert.equal(probe.requests(), 4);
  } finally {
    probe.close();
    session.close();
    server.close();
  }
});
