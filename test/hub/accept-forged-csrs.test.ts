// `ocm-ts accept` against the embedded hub over HTTPS: with only the bootstrap token, an attacker
// creates CSRs labelled with a cluster but asking for another identity (the hub controller's, another
// cluster's agent, two CNs, an extra cluster group). accept approves only the real agent's CSR,
// reports every forged one with its reason, and the signer issues no certificate for them. Even
// when an admin approves a forged CSR by hand, the signer refuses it; an ordinary CSR (alice) is signed.

import 'reflect-metadata';
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { ManagedCluster } from '../../src/api/cluster.js';
import type { CertificateSigningRequest, Secret } from '../../src/api/core.js';
import { createCsrDriver, type CsrDriver } from '../../src/agent/register/csr/csr-driver.js';
import { fakeLister } from '../../src/agent/register/fake-clients.js';
import { acceptCluster } from '../../src/cli/accept.js';
import { createKubeClient, resourceTypes } from '../../src/client/index.js';
import type { KubeClient } from '../../src/client/types.js';
import type { EmbeddedHub } from '../../src/embedded/embedded-hub.js';
import { startEmbeddedHubFixture, type EmbeddedHubFixture } from './embedded-hub-fixture.js';
import { createCsr, generateKeyPair, parseCertificate } from '../../src/util/x509.js';
import { realClock } from '../../src/util/clock.js';
import { nullLogger } from '../../src/util/logger.js';
import { waitFor } from '../helpers/wait-for.js';

const P = 'system:open-cluster-management:';
const CLUSTER_LABEL = 'open-cluster-management.io/cluster-name';
const USAGES = ['digital signature', 'key encipherment', 'client auth'];
/** A fresh signal per call: the driver's requests each add an abort listener. */
const signal = (): AbortSignal => new AbortController().signal;
let fixture: EmbeddedHubFixture | undefined;
let hub: EmbeddedHub;
let admin: KubeClient;
let bootstrap: KubeClient;
let key = '';

before(async () => {
  fixture = await startEmbeddedHubFixture('ocm-ts-accept-forged-');
  hub = fixture.hub;
  admin = createKubeClient({ kubeconfigPath: hub.adminKubeconfigPath });
  bootstrap = createKubeClient({ kubeconfigPath: hub.bootstrapKubeconfigPath });
  key = (await generateKeyPair('ecdsa-p256')).privateKeyPem;
});

after(async () => {
  admin?.close();
  bootstrap?.close();
  await fixture?.stop();
});

const csrs = (c: KubeClient) => c.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
const b64 = (s: string): string => Buffer.from(s).toString('base64');

async function twoCnRequest(cns: string[], orgs: string[]): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const name: x509.JsonName = [...orgs.map((o) => ({ O: [o] })), ...cns.map((cn) => ({ CN: [cn] }))];
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: alg }, webcrypto)).toString('pem') + '\n';
}

async function submit(as: KubeClient, name: string, cluster: string, pem: string, extraLabels: Record<string, string> = {}): Promise<string> {
  await csrs(as).create({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name, labels: { [CLUSTER_LABEL]: cluster, ...extraLabels } },
    spec: { request: b64(pem), signerName: 'kubernetes.io/kube-apiserver-client', usages: USAGES },
  });
  return name;
}

const subject = (cn: string, orgs: string[]): Promise<string> => createCsr({ commonName: cn, organizations: orgs, privateKeyPem: key });
const approvedCond = async (name: string) => (await csrs(admin).get(name)).status?.conditions?.find((c) => c.type === 'Approved');
const failedCond = async (name: string) => (await csrs(admin).get(name)).status?.conditions?.find((c) => c.type === 'Failed');
const certificateOf = async (name: string) => (await csrs(admin).get(name)).status?.certificate;

/** Our agent's CSR driver, creating its CSR on the hub with the bootstrap token. */
function agentDriver(cluster: string): CsrDriver {
  const driver = createCsrDriver({ clusterName: cluster, agentName: 'agent1', expirationSeconds: 0, log: nullLogger(), clock: realClock, random: () => 0.5 });
  driver.setHub({ csrs: csrs(bootstrap), lister: fakeLister(() => []) });
  return driver;
}
const emptySecret = (): Secret => ({ metadata: { namespace: 'open-cluster-management-agent', name: 'hub-kubeconfig-secret' }, data: {} });

test('accept approves only the real agent CSR; forged ones are reported, stay unapproved and unsigned', async () => {
  for (const c of ['cluster1', 'cluster2']) {
    await bootstrap.resource<ManagedCluster>(resourceTypes.managedClusters).create({ metadata: { name: c }, spec: { hubAcceptsClient: false } });
  }
  const agent = agentDriver('cluster1');
  assert.deepEqual(await agent.process('hub-kubeconfig-secret', emptySecret(), {}, signal()), {});
  const real = agent.pendingCsrName();
  const forged: { name: string; reason: RegExp }[] = [
    { name: await submit(bootstrap, 'forged-hub-controller', 'cluster1', await subject('ocm-ts:hub-controller', [])), reason: /common name ocm-ts:hub-controller is not system:open-cluster-management:cluster1:<agent>/ },
    { name: await submit(bootstrap, 'forged-other-cluster', 'cluster1', await subject(`${P}cluster2:x`, [`${P}cluster2`])), reason: /common name system:open-cluster-management:cluster2:x is not/ },
    { name: await submit(bootstrap, 'forged-two-groups', 'cluster1', await subject(`${P}cluster1:x`, [`${P}cluster1`, `${P}cluster2`])), reason: /organization system:open-cluster-management:cluster2 is not allowed/ },
    { name: await submit(bootstrap, 'forged-two-cns', 'cluster1', await twoCnRequest([`${P}cluster1:x`, 'ocm-ts:hub-controller'], [`${P}cluster1`])), reason: /2 common names/ },
    { name: await submit(bootstrap, 'forged-label-mismatch', 'cluster2', await subject(`${P}cluster1:x`, [`${P}cluster1`])), reason: /common name system:open-cluster-management:cluster1:x is not system:open-cluster-management:cluster2:<agent>/ },
  ];

  const said: string[] = [];
  const opts = { client: admin, clock: realClock, wait: false, timeoutMs: 10_000, say: (l: string) => said.push(l) };
  const r1 = await acceptCluster(opts, 'cluster1');
  const r2 = await acceptCluster(opts, 'cluster2');
  assert.deepEqual(r1.approvedCsrs, [real]);
  assert.deepEqual(r2.approvedCsrs, []);
  for (const f of forged) {
    const line = said.find((l) => l.startsWith(`refused CSR ${f.name} of cluster `));
    assert.ok(line, `${f.name} reported; said: ${said.join(' | ')}`);
    assert.match(line, f.reason);
  }

  // The real agent picks up its signed certificate; by then the signer has seen every CSR.
  const out = await waitFor(async () => {
    const o = await agent.process('hub-kubeconfig-secret', emptySecret(), {}, signal());
    return o.secret?.data?.['tls.crt'] ? o : undefined;
  }, 10_000);
  assert.equal(parseCertificate(Buffer.from(out.secret!.data!['tls.crt']!, 'base64').toString()).commonName, `${P}cluster1:agent1`);
  for (const f of forged) {
    assert.equal(await approvedCond(f.name), undefined, `${f.name} must stay unapproved`);
    assert.equal(await certificateOf(f.name), undefined, `${f.name} must stay unsigned`);
  }
  // Running accept again reports the forged CSRs again and still approves nothing.
  said.length = 0;
  assert.deepEqual((await acceptCluster(opts, 'cluster1')).approvedCsrs, []);
  assert.equal(said.filter((l) => l.startsWith('refused CSR forged-')).length, 4);
});

test('the signer refuses a forged CSR even when an admin approves it; an ordinary CSR for alice is signed', async () => {
  const forged = await submit(bootstrap, 'admin-approved-forgery', 'cluster1', await subject('ocm-ts:hub-controller', []));
  const mismatch = await submit(bootstrap, 'admin-approved-mismatch', 'cluster1', await subject(`${P}cluster2:x`, [`${P}cluster2`]));
  const alice = 'alice-client-cert';
  await csrs(admin).create({
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name: alice },
    spec: { request: b64(await subject('alice', ['team-a'])), signerName: 'kubernetes.io/kube-apiserver-client', usages: ['client auth'] },
  });
  for (const name of [forged, mismatch, alice]) {
    const cur = await csrs(admin).get(name);
    await csrs(admin).updateSubresource(
      { ...cur, status: { conditions: [{ type: 'Approved', status: 'True', reason: 'AdminApproved', message: 'approved by hand' }] } },
      'approval',
    );
  }
  const cert = await waitFor(() => certificateOf(alice), 10_000);
  assert.equal(parseCertificate(Buffer.from(cert, 'base64').toString()).commonName, 'alice');
  for (const [name, message] of [[forged, /ocm-ts:hub-controller is reserved/], [mismatch, /not the identity named by the CSR's open-cluster-management.io labels/]] as const) {
    const failed = await waitFor(() => failedCond(name), 10_000);
    assert.equal(failed.reason, 'SignerValidationFailure');
    assert.match(failed.message ?? '', message);
    assert.equal(await certificateOf(name), undefined);
  }
});
