// The approver's wiring around a new cluster's first CSR, with the hub's caches and API faked: the
// CSR waits while the cluster's RBAC is neither in the caches nor confirmed by the acceptance, and
// the acceptance's confirmation re-queues it and lets it be approved without the caches.

import 'reflect-metadata';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../api/cluster.js';
import type { CertificateSigningRequest } from '../../api/core.js';
import type { KubeObject } from '../../api/meta.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { Controller, ControllerOptions, Informer, InformerHandlers, KubeClient, Lister } from '../../client/types.js';
import { realClock } from '../../util/clock.js';
import { nullLogger } from '../../util/logger.js';
import { createCsr, generateKeyPair } from '../../util/x509.js';
import { createClusterRbacSignal } from '../common/rbac-signal.js';
import type { HubContext, HubInformers } from '../common/context.js';
import { resolveHubOptions } from '../options.js';
import { setupCsrApprovingController } from './csr-approving-controller.js';

const P = 'system:open-cluster-management:';
const BOOTSTRAP_USER = 'system:bootstrap:abcdef';

function fakeInformer<T extends KubeObject>(objects: T[]): Informer<T> & { handlers: InformerHandlers<T>[] } {
  const handlers: InformerHandlers<T>[] = [];
  const lister: Lister<T> = {
    get: (name, namespace) => objects.find((o) => o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace)),
    list: () => [...objects],
    size: () => objects.length,
    count: () => objects.length,
  };
  return {
    lister, handlers,
    addHandlers: (h) => void handlers.push(h),
    start: () => undefined,
    hasSynced: () => true,
    waitForSync: () => Promise.resolve(),
    state: () => 'watching',
  };
}

test("a new cluster's bootstrap CSR waits for its RBAC, and is approved once the acceptance confirms it wrote it", async () => {
  const key = (await generateKeyPair('ecdsa-p256')).privateKeyPem;
  const pem = await createCsr({ commonName: `${P}c1:agent1`, organizations: [`${P}c1`, `${P}managed-clusters`], privateKeyPem: key });
  const csr: CertificateSigningRequest = {
    metadata: { name: 'c1-abcde', labels: { 'open-cluster-management.io/cluster-name': 'c1' }, creationTimestamp: new Date().toISOString() },
    spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'key encipherment', 'client auth'], username: BOOTSTRAP_USER },
  };
  const cluster: ManagedCluster = { metadata: { name: 'c1', annotations: { 'open-cluster-management.io/automatically-accepted-on': '2026-01-01T00:00:00Z' } }, spec: { hubAcceptsClient: true } };
  const none = (): Informer<KubeObject> => fakeInformer<KubeObject>([]);
  const informers = {
    clusters: fakeInformer([cluster]), csrs: fakeInformer([csr]),
    clusterRoles: none(), clusterRoleBindings: none(), roleBindings: none(),
  } as unknown as HubInformers;
  const approvals: string[] = [];
  const client = {
    resource: () => ({ updateSubresource: async (o: KubeObject, sub: string) => (approvals.push(`${o.metadata.name}/${sub}`), o) }),
  } as unknown as KubeClient;
  let reconcile: ControllerOptions['reconcile'] | undefined;
  const queued: string[] = [];
  const rbacWritten = createClusterRbacSignal();
  const ctx: HubContext = {
    client, informers, clock: realClock, log: nullLogger(), csrResource: resourceTypes.certificateSigningRequests, rbacWritten,
    options: resolveHubOptions({ featureGates: ['ManagedClusterAutoApproval=true'], autoApprovedCsrUsers: [BOOTSTRAP_USER] }).options,
    newController: (o): Controller => {
      reconcile = o.reconcile;
      return { name: o.name, enqueue: (k) => void queued.push(k), enqueueAfter: () => undefined, run: () => Promise.resolve() };
    },
  };
  setupCsrApprovingController(ctx);
  const signal = new AbortController().signal;

  const waiting = await reconcile!('c1-abcde', signal);
  assert.ok(((waiting ?? {}).requeueAfterMs ?? 0) > 0, 'waits: no RBAC in the caches, none confirmed');
  assert.deepEqual(approvals, []);

  rbacWritten.confirm('c1');
  assert.deepEqual(queued, ['c1-abcde'], "the confirmation re-queues the cluster's CSR");
  assert.deepEqual(await reconcile!('c1-abcde', signal), {});
  assert.deepEqual(approvals, ['c1-abcde/approval']);

  rbacWritten.confirm('c1');
  assert.deepEqual(queued, ['c1-abcde'], 'confirmed again (the acceptance of an accepted cluster runs at each change): nothing re-queued');
  rbacWritten.forget('c1');
  assert.equal(rbacWritten.confirmed('c1'), false, 'a denied or removed cluster is forgotten');
});
