// Addon registration controller I with the credential controller J against real hub and spoke
// (spoke-agent.md §15.2–§15.5, §18.10): driver field written, CSR created with addon labels,
// approved and signed by the hub → addon secret on the spoke and ClusterCertificateRotated on the
// addon; a removed registration deletes the secret.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import type { ManagedClusterAddOn } from '../../../src/api/addon.js';
import type { CertificateSigningRequest, Secret } from '../../../src/api/core.js';
import { findCondition } from '../../../src/api/conditions.js';
import { createInformerFactory } from '../../../src/client/informer-factory.js';
import { isNotFound } from '../../../src/client/errors.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { nullLogger } from '../../../src/util/logger.js';
import { parseCertificate } from '../../../src/util/x509.js';
import { createAddonRegistrationController, createAddonRegistrationStarter, registrationConfigs } from '../../../src/agent/addon/index.js';
import { ensureNamespace, startClusters, type Clusters } from './clusters.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
const CLUSTER = 'reg-cluster';
const ADDON = 'helloworld';
before(async () => {
  env = await startClusters();
  await ensureNamespace(env.hubAdmin, CLUSTER);
  await ensureNamespace(env.spokeAdmin, 'open-cluster-management-agent-addon');
});
after(async () => {
  await env?.stop();
});

test('kubeClient registration: driver set, CSR approved and signed, secret written, then deleted when unregistered', async () => {
  const addons = env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER);
  await addons.create({ apiVersion: 'addon.open-cluster-management.io/v1beta1', kind: 'ManagedClusterAddOn', metadata: { name: ADDON, namespace: CLUSTER }, spec: {} });
  let a = await addons.get(ADDON);
  a.status = { registrations: [{ type: 'kubeClient', kubeClient: {} }] };
  // Validated against the v1beta1 schema it was written in (the storage version v1alpha1 would require signerName).
  await addons.updateStatus(a);

  const ac = new AbortController();
  setMaxListeners(100, ac.signal);
  const hubInformers = createInformerFactory(env.hubAdmin);
  const startRegistration = createAddonRegistrationStarter({
    hubClient: env.hubAdmin,
    hubInformers,
    spokeClient: env.spokeAdmin,
    bootstrapKubeconfigPath: env.hub.adminKubeconfigPath,
    log: nullLogger(),
  });
  const i = createAddonRegistrationController({ clusterName: CLUSTER, hubClient: env.hubAdmin, hubInformers, spokeClient: env.spokeAdmin, startRegistration, log: nullLogger() });
  hubInformers.start(ac.signal);
  const running = i.run(ac.signal);
  const csrs = env.hubAdmin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  const secrets = env.spokeAdmin.resource<Secret>(resourceTypes.secrets, 'open-cluster-management-agent-addon');
  try {
    a = await waitFor(async () => {
      const x = await addons.get(ADDON);
      return x.status?.registrations?.[0]?.kubeClient?.driver === 'csr' ? x : undefined;
    }, 10_000);

    const csr = await waitFor(async () => (await csrs.list({ labelSelector: `open-cluster-management.io/addon-name=${ADDON}` })).items[0], 10_000);
    assert.match(csr.metadata.name ?? '', new RegExp(`^addon-${CLUSTER}-${ADDON}-`));
    assert.equal(csr.metadata.labels?.['open-cluster-management.io/cluster-name'], CLUSTER);
    assert.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client');

    csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by test' }] };
    await csrs.updateSubresource(csr, 'approval');

    const secret = await waitFor(async () => {
      try {
        const s = await secrets.get(`${ADDON}-hub-kubeconfig`);
        return s.data?.['tls.crt'] ? s : undefined;
      } catch {
        return undefined;
      }
    }, 15_000);
    assert.deepEqual(Object.keys(secret.data ?? {}).sort(), ['cluster-name', 'kubeconfig', 'tls.crt', 'tls.key']);
    assert.equal(Buffer.from(secret.data!['cluster-name']!, 'base64').toString(), CLUSTER);
    const cert = parseCertificate(Buffer.from(secret.data!['tls.crt']!, 'base64').toString());
    assert.equal(cert.commonName, `system:open-cluster-management:cluster:${CLUSTER}:addon:${ADDON}:agent:${ADDON}`);
    assert.ok(Buffer.from(secret.data!['kubeconfig']!, 'base64').toString().includes(env.hub.url), 'kubeconfig targets the bootstrap hub');
    assert.deepEqual(cert.dnsNames, [`${ADDON}.addon.open-cluster-management.io`]);

    const rotated = await waitFor(async () => findCondition((await addons.get(ADDON)).status?.conditions, 'ClusterCertificateRotated'), 10_000);
    assert.equal(rotated.status, 'True');
    assert.equal(rotated.reason, 'ClientCertificateUpdated');

    // registration removed → secret deleted
    a = await addons.get(ADDON);
    a.status = { ...a.status, registrations: [] };
    await addons.updateStatus(a);
    await waitFor(async () => {
      try {
        await secrets.get(`${ADDON}-hub-kubeconfig`);
        return false;
      } catch (err) {
        return isNotFound(err);
      }
    }, 10_000);
    assert.equal(i.registrations.state().size, 0);
  } finally {
    ac.abort();
    await running;
  }
});

test('controller J alone: CSR with addon labels, approved and signed → addon secret and ClusterCertificateRotated', async () => {
  const addonName = 'direct';
  const addons = env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER);
  await addons.create({ apiVersion: 'addon.open-cluster-management.io/v1beta1', kind: 'ManagedClusterAddOn', metadata: { name: addonName, namespace: CLUSTER }, spec: {} });
  const ac = new AbortController();
  setMaxListeners(100, ac.signal);
  const hubInformers = createInformerFactory(env.hubAdmin);
  hubInformers.start(ac.signal);
  const start = createAddonRegistrationStarter({ hubClient: env.hubAdmin, hubInformers, spokeClient: env.spokeAdmin, bootstrapKubeconfigPath: env.hub.adminKubeconfigPath, log: nullLogger() });
  const [config] = registrationConfigs({
    clusterName: CLUSTER,
    addonName,
    registrations: [{ type: 'kubeClient', kubeClient: { driver: 'csr' } }],
    installationNamespace: 'open-cluster-management-agent-addon',
    hosted: false,
  }).configs;
  const stop = new AbortController();
  start({ clusterName: CLUSTER, addonName, config: config!, signal: stop.signal });
  const csrs = env.hubAdmin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  const secrets = env.spokeAdmin.resource<Secret>(resourceTypes.secrets, 'open-cluster-management-agent-addon');
  try {
    const csr = await waitFor(async () => (await csrs.list({ labelSelector: `open-cluster-management.io/addon-name=${addonName}` })).items[0], 10_000);
    assert.match(csr.metadata.name ?? '', new RegExp(`^addon-${CLUSTER}-${addonName}-`));
    assert.equal(csr.metadata.labels?.['open-cluster-management.io/cluster-name'], CLUSTER);
    assert.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client');
    csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by test' }] };
    await csrs.updateSubresource(csr, 'approval');

    const secret = await waitFor(async () => {
      try {
        const s = await secrets.get(`${addonName}-hub-kubeconfig`);
        return s.data?.['tls.crt'] ? s : undefined;
      } catch {
        return undefined;
      }
    }, 15_000);
    assert.deepEqual(Object.keys(secret.data ?? {}).sort(), ['cluster-name', 'kubeconfig', 'tls.crt', 'tls.key']);
    assert.equal(Buffer.from(secret.data!['cluster-name']!, 'base64').toString(), CLUSTER);
    const cert = parseCertificate(Buffer.from(secret.data!['tls.crt']!, 'base64').toString());
    assert.equal(cert.commonName, `system:open-cluster-management:cluster:${CLUSTER}:addon:${addonName}:agent:${addonName}`);
    assert.deepEqual(cert.organizations, [`system:open-cluster-management:cluster:${CLUSTER}:addon:${addonName}`]);
    assert.deepEqual(cert.dnsNames, [`${addonName}.addon.open-cluster-management.io`]);
    assert.ok(Buffer.from(secret.data!['kubeconfig']!, 'base64').toString().includes(env.hub.url), 'kubeconfig targets the bootstrap hub');
    const rotated = await waitFor(async () => findCondition((await addons.get(addonName)).status?.conditions, 'ClusterCertificateRotated'), 10_000);
    assert.equal(rotated.status, 'True');
    assert.equal(rotated.reason, 'ClientCertificateUpdated');
    // a valid certificate is reused: no second CSR
    await new Promise((r) => setTimeout(r, 300));
    assert.equal((await csrs.list({ labelSelector: `open-cluster-management.io/addon-name=${addonName}` })).items.length, 1);
  } finally {
    stop.abort();
    ac.abort();
  }
});
