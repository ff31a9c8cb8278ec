// Gate V1beta1CSRAPICompatibility: an API server serving CertificateSigningRequests only as
// certificates.k8s.io/v1beta1 (like kube-apiserver before 1.19); the agent's CSR client and the
// hub's approver fall back to it, the embedded signer issues the certificate.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ocmAdmissionPlugins } from '../../src/apiserver/admission/index.js';
import { HUB_CRD_NAMES } from '../../src/api/crds.js';
import type { CertificateSigningRequest } from '../../src/api/core.js';
import { hubCsrClient } from '../../src/agent/register/csr/csr-api-version.js';
import { createEcCsr, generateEcPrivateKey } from '../../src/agent/register/csr/native-csr.js';
import { isNotFound, resourceTypes } from '../../src/client/index.js';
import { startHubManager, type HubManager } from '../../src/hub/hub-manager.js';
import { nullLogger } from '../../src/util/logger.js';
import { startOcmApiServer, type OcmApiServer } from '../helpers/ocm-api-server.js';
import { waitFor } from '../helpers/wait-for.js';

let api: OcmApiServer;
const stop = new AbortController();
let hub: HubManager | undefined;
before(async () => {
  api = await startOcmApiServer({ crds: HUB_CRD_NAMES, server: { serveV1beta1Csr: true, admission: ocmAdmissionPlugins({ featureGates: { DefaultClusterSet: true } }) } });
});
after(async () => {
  stop.abort();
  await hub?.done;
  await api?.stop();
});

async function agentCsr(cluster: string): Promise<CertificateSigningRequest> {
  const key = (await generateEcPrivateKey()).pem;
  const pem = createEcCsr(key, { commonName: `system:open-cluster-management:${cluster}:agent1`, organizations: [`system:open-cluster-management:${cluster}`, 'system:open-cluster-management:managed-clusters'] });
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { generateName: `${cluster}-`, labels: { 'open-cluster-management.io/cluster-name': cluster } },
    spec: { request: Buffer.from(pem).toString('base64'), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['digital signature', 'key encipherment', 'client auth'] },
  } as CertificateSigningRequest;
}

test('the server serves CSRs as v1beta1 only', async () => {
  const group = await api.admin.request<{ versions: { version: string }[] }>('GET', '/apis/certificates.k8s.io');
  assert.deepEqual(group.versions.map((v) => v.version), ['v1beta1']);
  await assert.rejects(api.admin.resource(resourceTypes.certificateSigningRequests).list(), (e) => isNotFound(e));
  // without the gate the agent keeps asking for v1
  await assert.rejects(hubCsrClient(api.admin, false).create(await agentCsr('nogate')), (e) => isNotFound(e));
});

test('with the gate the agent creates a v1beta1 CSR, the hub approves it and the signer issues it', async () => {
  hub = await startHubManager({
    kubeconfigPath: api.server.adminKubeconfigPath,
    options: { featureGates: ['V1beta1CSRAPICompatibility=true', 'ManagedClusterAutoApproval=true'], autoApprovedCsrUsers: ['ocm-ts:admin'] },
    log: nullLogger(),
    signal: stop.signal,
  });
  const csrs = hubCsrClient(api.admin, true);
  const created = await csrs.create(await agentCsr('c1'));
  assert.equal(created.apiVersion, 'certificates.k8s.io/v1beta1');
  const issued = await waitFor(async () => {
    const cur = await csrs.get(created.metadata.name ?? '');
    return cur.status?.certificate ? cur : undefined;
  }, 15_000, { message: 'certificate issued' });
  assert.ok(issued.status?.conditions?.some((c) => c.type === 'Approved' && c.status === 'True'));
  assert.match(Buffer.from(issued.status!.certificate!, 'base64').toString(), /BEGIN CERTIFICATE/);
});
