// The hub's gRPC CloudEvents server against a grpc-js client, on the embedded hub with
// `--enabled-registration-drivers=csr,grpc`: publish and subscribe for a cluster's own objects,
// isolation between clusters (cluster A's identity can neither publish nor subscribe for cluster B),
// a bootstrap token's CSR of OCM's gRPC signer approved and signed with the gRPC CA, and garbage
// input answered with a gRPC error while the server keeps serving.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, credentials, status as grpcStatus, type ServiceError } from '@grpc/grpc-js';
import { parseYaml } from '../src/util/yaml.js';
import type { ManagedCluster } from '../src/api/cluster.js';
import { annotations, names } from '../src/api/constants.js';
import type { CertificateSigningRequest } from '../src/api/core.js';
import { ApiStatusError } from '../src/client/errors.js';
import { createKubeClient } from '../src/client/rest-client.js';
import { resourceTypes } from '../src/client/resource-types.js';
import type { KubeClient } from '../src/client/types.js';
import { startEmbeddedHub, type EmbeddedHub } from '../src/embedded/embedded-hub.js';
import { connectCloudEvents, GrpcCallError, type CloudEventsClient } from '../src/grpc/client.js';
import type { CloudEvent } from '../src/grpc/cloudevent.js';
import { decodeObject, encodeObject, encodeResyncRequest } from '../src/grpc/codecs.js';
import { dataTypes, type RegistrationKind } from '../src/grpc/event-types.js';
import { resolveHubOptions } from '../src/hub/options.js';
import { realClock } from '../src/util/clock.js';
import { nullLogger } from '../src/util/logger.js';
import { createCsr, createSelfSignedCa, generateKeyPair, issueCertificate, verifyCertificateChain } from '../src/util/x509.js';
import { FAST_TIMINGS } from './hub/hub-fixture.js';
import { agentGroups, agentUser } from './helpers/identities.js';
import { waitFor } from './helpers/wait-for.js';

let dir = '';
let hub: EmbeddedHub;
let admin: KubeClient;
let ca: { certPem: string; keyPem: string };
let url = '';
let bootstrapToken = '';
const ac = new AbortController();
const clients: CloudEventsClient[] = [];

async function agentClient(cluster: string): Promise<CloudEventsClient> {
  const key = await generateKeyPair('ecdsa-p256');
  const now = Date.now();
  const cert = await issueCertificate({
    ca, subject: { commonName: agentUser(cluster), organizations: agentGroups(cluster) }, publicKey: key.publicKeyPem,
    notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000), keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'],
  });
  const c = connectCloudEvents({ url, caPem: ca.certPem, clientCertPem: cert, clientKeyPem: key.privateKeyPem, keepAlive: { enable: false, timeMs: 0, timeoutMs: 0, permitWithoutStream: false } });
  clients.push(c);
  return c;
}

function event(kind: RegistrationKind, obj: Parameters<typeof encodeObject>[0], sub: 'spec' | 'status', action: 'create_request' | 'update_request', cluster?: string): CloudEvent {
  return encodeObject(obj, { source: 'test-agent', type: { dataType: dataTypes[kind], subResource: sub, action }, ...(cluster ? { clusterName: cluster } : {}) });
}

/** Subscribes and collects events; resolves once the server registered the subscription, or with its refusal. */
function subscribe(c: CloudEventsClient, cluster: string, kind: RegistrationKind): Promise<{ events: CloudEvent[]; close(): void } | Error> {
  return new Promise((resolve) => {
    const events: CloudEvent[] = [];
    const sub = c.subscribe({ clusterName: cluster, dataType: dataTypes[kind] }, {
      onEvent: (e) => events.push(e),
      onReady: () => resolve({ events, close: () => sub.close() }),
      onEnd: (err) => resolve(err),
    });
  });
}

async function createAcceptedCluster(name: string): Promise<void> {
  await admin.resource<ManagedCluster>(resourceTypes.managedClusters).create({ apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', metadata: { name }, spec: { hubAcceptsClient: true } });
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'grpc-hub-'));
  const now = Date.now();
  ca = await createSelfSignedCa({ commonName: 'grpc-ca', notBefore: new Date(now - 60_000), notAfter: new Date(now + 86_400_000) });
  await writeFile(join(dir, 'grpc-ca.crt'), ca.certPem);
  await writeFile(join(dir, 'grpc-ca.key'), ca.keyPem, { mode: 0o600 });
  hub = await startEmbeddedHub({
    dataDir: join(dir, 'hub'),
    apiserverListen: { host: '127.0.0.1', port: 0 },
    bootstrapTokenTtlMs: 3_600_000,
    hubOptions: resolveHubOptions({
      timings: FAST_TIMINGS,
      enabledRegistrationDrivers: ['csr', 'grpc'],
      unimplementedDriverFlags: { grpcCaFile: join(dir, 'grpc-ca.crt'), grpcKeyFile: join(dir, 'grpc-ca.key') },
      grpcServer: { listen: '127.0.0.1:0', heartbeatIntervalMs: 200 },
    }).options,
    log: nullLogger(),
    clock: realClock,
    signal: ac.signal,
  });
  url = `127.0.0.1:${hub.manager.grpcPort!}`;
  const kc = parseYaml(await readFile(hub.bootstrapKubeconfigPath, 'utf8')) as { users: { user: { token: string } }[] };
  bootstrapToken = kc.users[0]!.user.token;
  admin = createKubeClient({ kubeconfigPath: hub.adminKubeconfigPath }, { log: nullLogger(), userAgent: 'grpc-hub-test' });
  await createAcceptedCluster('cluster-a');
  await createAcceptedCluster('cluster-b');
  // The hub gives each accepted cluster its RBAC; the server's access reviews rely on it.
  await waitFor(async () => {
    const roles = await admin.resource(resourceTypes.clusterRoles).list();
    const names = roles.items.map((r) => r.metadata.name);
    return names.includes('open-cluster-management:managedcluster:cluster-a') && names.includes('open-cluster-management:managedcluster:cluster-b');
  }, 10_000);
});

after(async () => {
  for (const c of clients) c.close();
  admin?.close();
  ac.abort();
  await hub?.close();
  await rm(dir, { recursive: true, force: true });
});

test('a cluster subscribes to its ManagedCluster, gets it on a resync, and updates its status', async () => {
  const a = await agentClient('cluster-a');
  const sub = await subscribe(a, 'cluster-a', 'managedClusters');
  assert.ok(!(sub instanceof Error), String(sub));
  await a.publish(encodeResyncRequest({ source: 'test-agent', clusterName: 'cluster-a', kind: 'managedClusters', versions: [] }));
  const got = await waitFor(() => sub.events.find((e) => e.type.endsWith('.spec.update_request')), 5000);
  const mc = decodeObject<ManagedCluster>(got);
  assert.equal(mc.metadata.name, 'cluster-a');
  assert.equal(mc.kind, 'ManagedCluster');
  // The hub's controllers write the cluster too: like an agent, retry a conflict on the latest copy.
  await waitFor(async () => {
    const latest = await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('cluster-a');
    const next = { ...latest, status: { ...(latest.status ?? {}), version: { kubernetes: 'v1.99.0' } } };
    try {
      await a.publish(event('managedClusters', next, 'status', 'update_request'));
      return true;
    } catch (err) {
      if (err instanceof ApiStatusError && err.code === 409) return false;
      throw err;
    }
  }, 10_000);
  const stored = await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('cluster-a');
  assert.equal(stored.status?.version?.kubernetes, 'v1.99.0');
  // The change comes back on the stream, as the hub's objects do.
  await waitFor(() => sub.events.some((e) => decodeObject<ManagedCluster>(e).status?.version?.kubernetes === 'v1.99.0'), 5000);
  sub.close();
});

test('cluster A can neither subscribe to nor publish for cluster B', async () => {
  const a = await agentClient('cluster-a');
  const sub = await subscribe(a, 'cluster-b', 'managedClusters');
  assert.ok(sub instanceof GrpcCallError, `subscription to another cluster was not refused: ${String(sub)}`);
  assert.equal(sub.code, grpcStatus.PERMISSION_DENIED);
  const b = await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('cluster-b');
  const forged = { ...b, status: { version: { kubernetes: 'v0.0.0-forged' } } };
  // Naming cluster B in the event, or naming cluster A while carrying cluster B's object.
  for (const e of [event('managedClusters', forged, 'status', 'update_request'), event('managedClusters', forged, 'status', 'update_request', 'cluster-a')]) {
    await assert.rejects(a.publish(e), (err: unknown) => err instanceof GrpcCallError && err.code === grpcStatus.PERMISSION_DENIED);
  }
  const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'managed-cluster-lease', namespace: 'cluster-b' }, spec: {} };
  await assert.rejects(a.publish(event('leases', lease, 'spec', 'update_request')), (err: unknown) => err instanceof GrpcCallError && err.code === grpcStatus.PERMISSION_DENIED);
  const after = await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('cluster-b');
  assert.notEqual(after.status?.version?.kubernetes, 'v0.0.0-forged');
});

test('an agent may not accept its own cluster, and API errors come back as Kubernetes statuses', async () => {
  const key = await generateKeyPair('ecdsa-p256');
  const boot = bootstrapClient();
  const mc = { metadata: { name: 'cluster-self' }, spec: { hubAcceptsClient: true } };
  await assert.rejects(boot.publish(event('managedClusters', mc, 'spec', 'create_request')), (err: unknown) => err instanceof ApiStatusError && err.code === 403);
  const csr = await csrObject('cluster-a', key.privateKeyPem);
  await boot.publish(event('csrs', csr, 'spec', 'create_request'));
  await assert.rejects(boot.publish(event('csrs', csr, 'spec', 'create_request')), (err: unknown) => err instanceof ApiStatusError && err.code === 409);
});

function bootstrapClient(): CloudEventsClient {
  const c = connectCloudEvents({ url, caPem: ca.certPem, token: bootstrapToken, keepAlive: { enable: false, timeMs: 0, timeoutMs: 0, permitWithoutStream: false } });
  clients.push(c);
  return c;
}


async function csrObject(cluster: string, keyPem: string, name = `${cluster}-${Math.random().toString(36).slice(2, 8)}`): Promise<CertificateSigningRequest> {
  const pem = await createCsr({ commonName: agentUser(cluster), organizations: agentGroups(cluster), privateKeyPem: keyPem });
  return {
    apiVersion: 'certificates.k8s.io/v1', kind: 'CertificateSigningRequest',
    metadata: { name, labels: { 'open-cluster-management.io/cluster-name': cluster } },
    spec: { request: Buffer.from(pem).toString('base64'), signerName: names.grpcSigner, usages: ['digital signature', 'key encipherment', 'client auth'] },
  };
}

test('a bootstrap token\'s gRPC CSR is created by the hub for it, approved, and signed with the gRPC CA', async () => {
  const boot = bootstrapClient();
  const sub = await subscribe(boot, 'cluster-c', 'csrs');
  assert.ok(!(sub instanceof Error), String(sub));
  const key = await generateKeyPair('ecdsa-p256');
  const csr = await csrObject('cluster-c', key.privateKeyPem);
  await boot.publish(event('csrs', { ...csr, metadata: { ...csr.metadata, annotations: { [annotations.csrUser]: 'forged' } } }, 'spec', 'create_request'));
  const csrs = admin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  const created = await csrs.get(csr.metadata.name!);
  assert.match(created.metadata.annotations?.[annotations.csrUser] ?? '', /^system:bootstrap:/);
  const now = new Date().toISOString();
  await csrs.updateSubresource({ ...created, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved', lastUpdateTime: now }] } }, 'approval');
  const signed = await waitFor(async () => (await csrs.get(csr.metadata.name!)).status?.certificate, 10_000);
  assert.ok(verifyCertificateChain(Buffer.from(signed, 'base64').toString('utf8'), ca.certPem), 'the certificate is not signed by the gRPC CA');
  // The subscriber sees its CSR signed.
  await waitFor(() => sub.events.some((e) => decodeObject<CertificateSigningRequest>(e).status?.certificate !== undefined), 5000);
  sub.close();
});

test('garbage gets a gRPC error and the server keeps serving', async () => {
  const a = await agentClient('cluster-a');
  const bad = (e: Partial<CloudEvent>): CloudEvent => ({ id: 'x', source: 's', specVersion: '1.0', type: 'cluster.open-cluster-management.io.v1.managedclusters.status.update_request', extensions: { clustername: 'cluster-a' }, data: Buffer.from('{}'), ...e });
  const invalid = (err: unknown): boolean => err instanceof GrpcCallError && err.code === grpcStatus.INVALID_ARGUMENT;
  await assert.rejects(a.publish(bad({ specVersion: '0.3' })), invalid);
  await assert.rejects(a.publish(bad({ type: 'no.such' })), invalid);
  await assert.rejects(a.publish(bad({ type: 'work.open-cluster-management.io.v1.manifestworks.spec.create_request' })), invalid);
  await assert.rejects(a.publish(bad({ data: Buffer.from('not json') })), invalid);
  await assert.rejects(a.publish(bad({ extensions: {} })), invalid);
  const badSub = await subscribe(a, 'cluster-a', 'managedClusters');
  assert.ok(!(badSub instanceof Error));
  badSub.close();
  const noType = await new Promise<Error | undefined>((resolve) => {
    a.subscribe({ clusterName: 'cluster-a', dataType: { group: '', version: '', resource: '' } }, { onEvent: () => {}, onEnd: resolve, onReady: () => resolve(undefined) });
  });
  assert.ok(noType instanceof GrpcCallError && noType.code === grpcStatus.INVALID_ARGUMENT, String(noType));
  // Bytes that are no protobuf message at all, and a call without credentials.
  const raw = new Client(url, credentials.createSsl(Buffer.from(ca.certPem)));
  const code = await new Promise<number>((resolve) => {
    raw.makeUnaryRequest('/io.cloudevents.v1.CloudEventService/Publish', (b: Buffer) => b, (b: Buffer) => b, Buffer.from([0xff, 0xff, 0xff, 0x0f, 0x01]), (err: ServiceError | null) => resolve(err?.code ?? 0));
  });
  assert.notEqual(code, 0);
  const anon = await new Promise<number>((resolve) => {
    raw.makeUnaryRequest('/io.cloudevents.v1.CloudEventService/Publish', (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), (err: ServiceError | null) => resolve(err?.code ?? 0));
  });
  assert.equal(anon, grpcStatus.UNAUTHENTICATED);
  raw.close();
  // Still serving: a well-formed event is answered (by the hub's API: success or a conflict status).
  const mc = await admin.resource<ManagedCluster>(resourceTypes.managedClusters).get('cluster-a');
  await a.publish(event('managedClusters', mc, 'status', 'update_request')).catch((err: unknown) => {
    if (!(err instanceof ApiStatusError && err.code === 409)) throw err;
  });
});
