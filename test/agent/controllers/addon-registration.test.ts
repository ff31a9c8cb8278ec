// The add-on registration controller with the add-on credential (client certificate) controller
// against real hub and spoke servers: driver field written, CSR created with add-on labels, approved
// and signed by the hub → add-on secret on the spoke and ClusterCertificateRotated on the add-on; a
// removed registration deletes the secret; a valid certificate is reused.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { setMaxListeners } from 'node:events';
import type { ManagedClusterAddOn } from '../../../src/api/addon.js';
import type { CertificateSigningRequest, Secret } from '../../../src/api/core.js';
import { findCondition } from '../../../src/api/conditions.js';
import { createInformerFactory } from '../../../src/client/informer-factory.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { nullLogger } from '../../../src/util/logger.js';
import { parseCertificate } from '../../../src/util/x509.js';
import { createAddonRegistrationController, createAddonRegistrationStarter, registrationConfigs } from '../../../src/agent/addon/index.js';
import { ensureNamespace, startClusters, type Clusters } from './clusters.js';
import { getIfExists } from '../../helpers/objects.js';
import { captureLog } from '../../helpers/test-log.js';
import { waitFor } from '../../helpers/wait-for.js';

let env: Clusters;
const CLUSTER = 'reg-cluster';
const ADDON = 'helloworld';
before(async () => {
  env = await startClusters();
  await ensureNamespace(env.hubAdmin, CLUSTER);
  await ensureNamespace(env.spokeAdmin, ADDON_NS);
});
after(async () => {
  await env?.stop();
});

const ADDON_NS = 'open-cluster-management-agent-addon';
const csrsOf = (addon: string) => env.hubAdmin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests).list({ labelSelector: `open-cluster-management.io/addon-name=${addon}` });
const addonSecrets = () => env.spokeAdmin.resource<Secret>(resourceTypes.secrets, ADDON_NS);

/**
 * The hub's part and what the agent must then do: the add-on's CSR (with its labels and signer) is
 * approved, its signed certificate lands in `<addon>-hub-kubeconfig` on the spoke, and the add-on
 * reports ClusterCertificateRotated.
 */
async function approveAndCheckCredential(addon: string): Promise<void> {
  const csr = await waitFor(async () => (await csrsOf(addon)).items[0], 10_000, { message: `${addon} CSR` });
  assert.match(csr.metadata.name ?? '', new RegExp(`^addon-${CLUSTER}-${addon}-`));
  assert.equal(csr.metadata.labels?.['open-cluster-management.io/cluster-name'], CLUSTER);
  assert.equal(csr.spec.signerName, 'kubernetes.io/kube-apiserver-client');
  csr.status = { conditions: [{ type: 'Approved', status: 'True', reason: 'Test', message: 'approved by test' }] };
  await env.hubAdmin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests).updateSubresource(csr, 'approval');

  const secret = await waitFor(async () => {
    const s = await addonSecrets().get(`${addon}-hub-kubeconfig`);
    return s.data?.['tls.crt'] ? s : undefined;
  }, 15_000, { message: `${addon} secret with a certificate` });
  assert.deepEqual(Object.keys(secret.data ?? {}).sort(), ['cluster-name', 'kubeconfig', 'tls.crt', 'tls.key']);
  assert.equal(Buffer.from(secret.data!['cluster-name']!, 'base64').toString(), CLUSTER);
  const cert = parseCertificate(Buffer.from(secret.data!['tls.crt']!, 'base64').toString());
  assert.equal(cert.commonName, `system:open-cluster-management:cluster:${CLUSTER}:addon:${addon}:agent:${addon}`);
  assert.deepEqual(cert.organizations, [`system:open-cluster-management:cluster:${CLUSTER}:addon:${addon}`]);
  assert.deepEqual(cert.dnsNames, [`${addon}.addon.open-cluster-management.io`]);
  assert.ok(Buffer.from(secret.data!['kubeconfig']!, 'base64').toString().includes(env.hub.url), 'kubeconfig targets the bootstrap hub');

  const addons = env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER);
  const rotated = await waitFor(async () => findCondition((await addons.get(addon)).status?.conditions, 'ClusterCertificateRotated'), 10_000);
  assert.equal(rotated.status, 'True');
  assert.equal(rotated.reason, 'ClientCertificateUpdated');
}

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
  try {
    a = await waitFor(async () => {
      const x = await addons.get(ADDON);
      return x.status?.registrations?.[0]?.kubeClient?.driver === 'csr' ? x : undefined;
    }, 10_000);
    await approveAndCheckCredential(ADDON);

    // registration removed → secret deleted
    a = await addons.get(ADDON);
    a.status = { ...a.status, registrations: [] };
    await addons.updateStatus(a);
    // the secret is deleted, then the registration forgotten
    await waitFor(async () => (await getIfExists(addonSecrets(), `${ADDON}-hub-kubeconfig`)) === undefined && i.registrations.state().size === 0, 10_000, {
      message: 'secret deleted, registration gone',
    });
  } finally {
    ac.abort();
    await running;
  }
});

test('the credential controller alone: CSR approved and signed → add-on secret and ClusterCertificateRotated; a valid certificate is reused', async () => {
  const addonName = 'direct';
  const addons = env.hubAdmin.resource<ManagedClusterAddOn>(resourceTypes.managedClusterAddOns, CLUSTER);
  await addons.create({ apiVersion: 'addon.open-cluster-management.io/v1beta1', kind: 'ManagedClusterAddOn', metadata: { name: addonName, namespace: CLUSTER }, spec: {} });
  const ac = new AbortController();
  setMaxListeners(100, ac.signal);
  const hubInformers = createInformerFactory(env.hubAdmin);
  hubInformers.start(ac.signal);
  const logs = captureLog();
  const start = createAddonRegistrationStarter({
    hubClient: env.hubAdmin,
    hubInformers,
    spokeClient: env.spokeAdmin,
    bootstrapKubeconfigPath: env.hub.adminKubeconfigPath,
    secretResyncMs: 100,
    log: logs.log,
  });
  const [config] = registrationConfigs({
    clusterName: CLUSTER,
    addonName,
    registrations: [{ type: 'kubeClient', kubeClient: { driver: 'csr' } }],
    installationNamespace: ADDON_NS,
    hosted: false,
  }).configs;
  const stop = new AbortController();
  start({ clusterName: CLUSTER, addonName, config: config!, signal: stop.signal });
  try {
    await approveAndCheckCredential(addonName);
    // a valid certificate is reused: three more runs of the credential controller, no second CSR
    const runs = (): number => logs.reconciles(`ClientCertController@addon:${addonName}:type:kubeClient`);
    const target = runs() + 3;
    await waitFor(() => runs() >= target, 10_000, { message: 'three more credential controller runs' });
    assert.equal((await csrsOf(addonName)).items.length, 1);
  } finally {
    stop.abort();
    ac.abort();
  }
});
