import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeObject, encodeObject, encodeResyncRequest } from './codecs.js';
import { dataTypes, EventTypeError, parseDataType, parseEventType, parseResyncRequest } from './event-types.js';
import { parseGrpcConfig } from './grpc-config.js';

test('event types parse as OCM formats them; malformed ones are refused', () => {
  assert.deepEqual(parseEventType('cluster.open-cluster-management.io.v1.managedclusters.status.update_request'), {
    dataType: dataTypes.managedClusters, subResource: 'status', action: 'update_request',
  });
  assert.deepEqual(parseDataType('certificates.k8s.io.v1.certificatesigningrequests'), dataTypes.csrs);
  for (const bad of ['', 'a.b', 'a.v1.r.body.create_request', 'a.v1.r.spec.explode', 'a..r.spec.create_request']) {
    assert.throws(() => parseEventType(bad), EventTypeError, bad);
  }
});

test('a ManagedCluster is encoded with its name as resource id and cluster, and decoded back', () => {
  const mc = { metadata: { name: 'c1', resourceVersion: '7' }, spec: { hubAcceptsClient: false } };
  const e = encodeObject(mc, { source: 'agent1', type: { dataType: dataTypes.managedClusters, subResource: 'spec', action: 'create_request' } });
  assert.equal(e.type, 'cluster.open-cluster-management.io.v1.managedclusters.spec.create_request');
  assert.equal(e.extensions['clustername'], 'c1');
  assert.equal(e.extensions['resourceid'], 'c1');
  assert.equal(e.extensions['resourceversion'], '7');
  assert.equal(e.dataContentType, 'application/json');
  const back = decodeObject(e);
  assert.equal(back.kind, 'ManagedCluster');
  assert.equal(back.apiVersion, 'cluster.open-cluster-management.io/v1');
  assert.deepEqual(back.spec, { hubAcceptsClient: false });
});

test('CSRs take their cluster from the cluster-name label (refused without it); leases from their namespace', () => {
  const csrType = { dataType: dataTypes.csrs, subResource: 'spec' as const, action: 'create_request' as const };
  const csr = { metadata: { name: 'x', labels: { 'open-cluster-management.io/cluster-name': 'c2' } }, spec: {} };
  assert.equal(encodeObject(csr, { source: 's', type: csrType }).extensions['clustername'], 'c2');
  assert.throws(() => encodeObject({ metadata: { name: 'x' } }, { source: 's', type: csrType }), /no cluster name/);
  const lease = { metadata: { name: 'l', namespace: 'c3' } };
  assert.equal(encodeObject(lease, { source: 's', type: { dataType: dataTypes.leases, subResource: 'spec', action: 'update_request' } }).extensions['clustername'], 'c3');
});

test('decodeObject refuses data that is not a JSON object', () => {
  const base = { id: 'i', source: 's', specVersion: '1.0', type: 't', extensions: {} };
  for (const data of ['nope', '[1]', '3', '{"metadata":"x"}']) assert.throws(() => decodeObject({ ...base, data: Buffer.from(data) }), EventTypeError);
});

test('resync requests round-trip their versions; garbage is refused', () => {
  const e = encodeResyncRequest({ source: 'a', clusterName: 'c1', kind: 'leases', versions: [{ resourceID: 'l', resourceVersion: 3 }] });
  assert.equal(e.type, 'coordination.k8s.io.v1.leases.spec.resync_request');
  assert.deepEqual(parseResyncRequest(e.data), { resourceVersions: [{ resourceID: 'l', resourceVersion: 3 }] });
  assert.throws(() => parseResyncRequest(Buffer.from('{"resourceVersions":3}')), EventTypeError);
  assert.throws(() => parseResyncRequest(Buffer.from('garbage')), EventTypeError);
});

test('gRPC config: base64 data, files, token, keepalive; OCM\'s refusals', () => {
  const b64 = (s: string): string => Buffer.from(s).toString('base64');
  const c = parseGrpcConfig(`url: 127.0.0.1:8090\ncaData: ${b64('CA')}\ntoken: abc\nkeepAliveConfig:\n  enable: true\n  time: 5s\nserverHealthinessTimeout: 20s\n`, () => '');
  assert.equal(c.url, '127.0.0.1:8090');
  assert.equal(c.caPem, 'CA');
  assert.equal(c.token, 'abc');
  assert.deepEqual(c.keepAlive, { enable: true, timeMs: 5000, timeoutMs: 10_000, permitWithoutStream: false });
  assert.equal(c.serverHealthinessTimeoutMs, 20_000);
  const files: Record<string, string> = { '/d/ca.crt': 'CA2', '/d/tls.crt': 'CERT', '/d/tls.key': 'KEY' };
  const f = parseGrpcConfig('url: h:1\ncaFile: ca.crt\nclientCertFile: tls.crt\nclientKeyFile: /d/tls.key\n', (p) => files[p] ?? '', '/d');
  assert.deepEqual([f.caPem, f.clientCertPem, f.clientKeyPem], ['CA2', 'CERT', 'KEY']);
  assert.throws(() => parseGrpcConfig('caData: eA==\n', () => ''), /url is required/);
  assert.throws(() => parseGrpcConfig(`url: h:1\nclientCertData: ${b64('C')}\n`, () => ''), /both or none/);
  assert.throws(() => parseGrpcConfig('url: h:1\ntoken: t\n', () => ''), /requires authority/);
});
