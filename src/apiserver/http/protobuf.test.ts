import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { protobufEnvelope as envelope } from '../../../test/helpers/protobuf-encode.js';
import { decodeProtobufObject, ProtobufDecodeError } from './protobuf.js';

test('decodes a Namespace as kubectl create namespace sends it', () => {
  const body = envelope('v1', 'Namespace', [[1, [[1, 'team-a'], [11, [[1, 'env'], [2, 'prod']]], [14, 'a'], [14, 'b']]], [2, []], [3, []]]);
  assert.deepEqual(decodeProtobufObject(body), {
    apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-a', labels: { env: 'prod' }, finalizers: ['a', 'b'] }, spec: {}, status: {},
  });
});

test('decodes a SelfSubjectAccessReview and a SubjectAccessReview with extra values', () => {
  const ssar = envelope('authorization.k8s.io/v1', 'SelfSubjectAccessReview', [[1, []], [2, [[1, [[1, 'ns'], [2, 'create'], [5, 'configmaps']]]]]]);
  assert.deepEqual(decodeProtobufObject(ssar).spec, { resourceAttributes: { namespace: 'ns', verb: 'create', resource: 'configmaps' } });
  const sar = envelope('authorization.k8s.io/v1', 'SubjectAccessReview', [[2, [[3, 'alice'], [4, 'g1'], [5, [[1, 'k'], [2, [[1, 'v1'], [1, 'v2']]]]]]]]);
  assert.deepEqual(decodeProtobufObject(sar).spec, { user: 'alice', groups: ['g1'], extra: { k: ['v1', 'v2'] } });
});

test('decodes a CSR approval with times, bytes and integers', () => {
  const csr = envelope('certificates.k8s.io/v1', 'CertificateSigningRequest', [
    [1, [[1, 'c1'], [6, '42'], [8, [[1, 1767225600]]]]],
    [2, [[1, Buffer.from('PEM')], [7, 'kubernetes.io/kube-apiserver-client'], [8, 3600], [5, 'client auth']]],
    [3, [[1, [[1, 'Approved'], [6, 'True'], [2, 'R'], [4, [[1, 1767225600]]]]]]],
  ]);
  assert.deepEqual(decodeProtobufObject(csr), {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest',
    metadata: { name: 'c1', resourceVersion: '42', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { request: Buffer.from('PEM').toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', expirationSeconds: 3600, usages: ['client auth'] },
    status: { conditions: [{ type: 'Approved', status: 'True', reason: 'R', lastUpdateTime: '2026-01-01T00:00:00Z' }] },
  });
});

test('decodes DeleteOptions under any group version, as client-go sends them with a protobuf client', () => {
  const body = envelope('rbac.authorization.k8s.io/v1', 'DeleteOptions', [[2, [[1, 'uid-1']]], [4, 'Foreground'], [5, 'All']]);
  assert.deepEqual(decodeProtobufObject(body), {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'DeleteOptions', preconditions: { uid: 'uid-1' }, propagationPolicy: 'Foreground', dryRun: ['All'],
  });
});

test('decodes events.k8s.io/v1 and core v1 Events as event recorders send them', () => {
  const ev = envelope('events.k8s.io/v1', 'Event', [
    [1, [[1, 'c1.abc'], [3, 'c1']]], [2, [[1, 1767225600], [2, 5000]]], [4, 'registration-agent'], [5, 'agent-1'], [6, 'Update'], [7, 'CSRCreated'],
    [8, [[1, 'ManagedCluster'], [3, 'c1'], [5, 'cluster.open-cluster-management.io/v1']]], [10, 'A csr is created'], [11, 'Normal'],
  ]);
  assert.deepEqual(decodeProtobufObject(ev), {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'c1.abc', namespace: 'c1' }, eventTime: '2026-01-01T00:00:00.000005Z',
    reportingController: 'registration-agent', reportingInstance: 'agent-1', action: 'Update', reason: 'CSRCreated',
    regarding: { kind: 'ManagedCluster', name: 'c1', apiVersion: 'cluster.open-cluster-management.io/v1' }, note: 'A csr is created', type: 'Normal',
  });
  const core = envelope('v1', 'Event', [[1, [[1, 'e1'], [3, 'ns']]], [2, [[1, 'Pod'], [3, 'p']]], [3, 'Started'], [4, 'started'], [8, 2], [9, 'Normal']]);
  assert.deepEqual(decodeProtobufObject(core), {
    apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'ns' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'Started', message: 'started', count: 2, type: 'Normal',
  });
});

test('refuses a body without the prefix, a truncated one, and a kind it has no table for', () => {
  assert.throws(() => decodeProtobufObject(Buffer.from('{}')), ProtobufDecodeError);
  assert.throws(() => decodeProtobufObject(envelope('v1', 'Namespace', [[1, [[1, 'x']]]]).subarray(0, 20)), ProtobufDecodeError);
  assert.throws(() => decodeProtobufObject(envelope('v1', 'Pod', [])), /no protobuf decoding for v1 Pod/);
});

test('any bytes after the envelope either decode or fail as a ProtobufDecodeError (never another error)', () => {
  const kinds = ['v1/Namespace', 'certificates.k8s.io/v1/CertificateSigningRequest', 'coordination.k8s.io/v1/Lease', 'authorization.k8s.io/v1/SubjectAccessReview'];
  fc.assert(fc.property(fc.constantFrom(...kinds), fc.uint8Array({ maxLength: 64 }), (kind, bytes) => {
    const slash = kind.lastIndexOf('/');
    const body = envelope(kind.slice(0, slash), kind.slice(slash + 1), [[1, Buffer.from(bytes)], [2, Buffer.from(bytes)], [3, Buffer.from(bytes)]]);
    try {
      decodeProtobufObject(body);
    } catch (err) {
      if (!(err instanceof ProtobufDecodeError)) throw err;
    }
  }), { numRuns: 2000 });
  // A time far outside what a date can hold.
  const late = envelope('v1', 'Namespace', [[1, [[8, [[1, Number.MAX_SAFE_INTEGER]]]]]]);
  assert.throws(() => decodeProtobufObject(late), ProtobufDecodeError);
});
