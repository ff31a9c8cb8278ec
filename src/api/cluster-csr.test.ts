import 'reflect-metadata';
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { CertificateSigningRequest } from './core.js';
import { createCsr, generateKeyPair } from '../util/x509.js';
import { createCsrDriver } from '../agent/register/csr/csr-driver.js';
import { createAddonCsrDriver } from '../agent/addon/addon-csr-driver.js';
import { setSubjectForRegistration } from '../agent/addon/registration-config.js';
import { fakeLister, fakeResourceClient } from '../agent/register/fake-clients.js';
import { resourceTypes } from '../client/resource-types.js';
import { realClock } from '../util/clock.js';
import { nullLogger } from '../util/logger.js';
import { decodeCsrRequest } from './csr-subject.js';
import { labelledSubjectProblem, validateClusterCsr, type ClusterCsrCheck } from './cluster-csr.js';

const P = 'system:open-cluster-management:';
const CLUSTER_LABEL = 'open-cluster-management.io/cluster-name';
const ADDON_LABEL = 'open-cluster-management.io/addon-name';
const USAGES = ['digital signature', 'key encipherment', 'client auth'];
const BOOTSTRAP = { username: 'system:bootstrap:abcdef', groups: ['system:bootstrappers', 'system:bootstrappers:managedcluster', 'system:authenticated'] };
const signal = new AbortController().signal;
const b64 = (s: string): string => Buffer.from(s).toString('base64');

let key = '';
/** The CSRs our own agent creates (cluster registration and a default add-on registration). */
let agentCsr: CertificateSigningRequest;
let addonCsr: CertificateSigningRequest;

async function agentDriverCsr(): Promise<CertificateSigningRequest> {
  const csrs = fakeResourceClient<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  const driver = createCsrDriver({ clusterName: 'cluster1', agentName: 'agent1', expirationSeconds: 0, log: nullLogger(), clock: realClock, random: () => 0.5 });
  driver.setHub({ csrs, lister: fakeLister(() => [...csrs.objects.values()]) });
  await driver.process('test', { metadata: { name: 's' }, data: {} }, {}, signal);
  return [...csrs.objects.values()][0]!;
}

async function addonDriverCsr(): Promise<CertificateSigningRequest> {
  const csrs = fakeResourceClient<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  const registration = setSubjectForRegistration({ type: 'kubeClient', kubeClient: { driver: 'csr' } }, 'cluster1', 'addon1');
  const driver = createAddonCsrDriver({
    clusterName: 'cluster1', addonName: 'addon1', registration, csrs, csrLister: fakeLister(() => [...csrs.objects.values()]),
    expirationSeconds: 0, log: nullLogger(), clock: realClock, random: () => 0.5,
  });
  await driver.process('test', { metadata: { name: 's' }, data: {} }, {}, signal);
  return [...csrs.objects.values()][0]!;
}

/** A request with several CN attributes, which createCsr cannot make. */
async function multiCnRequest(cns: string[], orgs: string[]): Promise<string> {
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const name: x509.JsonName = [...orgs.map((o) => ({ O: [o] })), ...cns.map((cn) => ({ CN: [cn] }))];
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name, keys, signingAlgorithm: alg }, webcrypto);
  return b64(csr.toString('pem') + '\n');
}

before(async () => {
  key = (await generateKeyPair('ecdsa-p256')).privateKeyPem;
  agentCsr = await agentDriverCsr();
  addonCsr = await addonDriverCsr();
});

const request = async (cn: string, orgs: string[]): Promise<string> => b64(await createCsr({ commonName: cn, organizations: orgs, privateKeyPem: key }));
const goodOrgs = [`${P}cluster1`, `${P}managed-clusters`];
const goodCn = `${P}cluster1:agent1`;

interface CsrInput {
  request?: () => Promise<string>;
  labels?: Record<string, string>;
  signerName?: string;
  usages?: string[] | null;
  username?: string;
  groups?: string[];
}

async function build(i: CsrInput): Promise<CertificateSigningRequest> {
  const requester = i.username !== undefined || i.groups !== undefined ? { ...(i.username !== undefined ? { username: i.username } : {}), ...(i.groups ? { groups: i.groups } : {}) } : BOOTSTRAP;
  return {
    metadata: { name: 'csr1', labels: i.labels ?? { [CLUSTER_LABEL]: 'cluster1' } },
    spec: {
      request: await (i.request ?? (() => request(goodCn, goodOrgs)))(),
      signerName: i.signerName ?? 'kubernetes.io/kube-apiserver-client',
      ...(i.usages === null ? {} : { usages: i.usages ?? USAGES }),
      ...requester,
    },
  };
}

const withRequester = (csr: CertificateSigningRequest, r: { username: string; groups?: string[] }): CertificateSigningRequest => ({
  ...csr,
  spec: { ...csr.spec, username: r.username, groups: r.groups ?? [] },
});

test('validateClusterCsr: the CSRs our agent creates are valid, from a bootstrap token and as renewals', () => {
  assert.deepEqual(validateClusterCsr(withRequester(agentCsr, BOOTSTRAP)), { valid: true, cluster: 'cluster1', agentName: 'agent1', commonName: goodCn });
  assert.equal(validateClusterCsr(withRequester(agentCsr, { username: goodCn, groups: goodOrgs })).valid, true);
  // a renewal by the same cluster's agent under another agent name (agent id changed)
  assert.equal(validateClusterCsr(withRequester(agentCsr, { username: `${P}cluster1:agent0` })).valid, true);
});

test('validateClusterCsr: an add-on CSR of our agent is not the cluster\'s', () => {
  const v = validateClusterCsr(withRequester(addonCsr, { username: `${P}cluster1:agent1` }));
  assert.equal(v.valid, false);
  assert.equal(!v.valid && v.check, 'labels');
});

type Expect = { valid: true } | { check: ClusterCsrCheck; reason?: RegExp };
const cases: { name: string; input: CsrInput; bootstrapUsers?: string[]; expected: Expect }[] = [
  // legitimate
  { name: "OCM's agent: cluster group and managed-clusters group", input: {}, expected: { valid: true } },
  { name: 'older OCM agents: without the managed-clusters group', input: { request: () => request(goodCn, [`${P}cluster1`]) }, expected: { valid: true } },
  { name: 'client auth alone', input: { usages: ['client auth'] }, expected: { valid: true } },
  { name: 'requester in the OCM bootstrap group', input: { username: 'bootstrap-user', groups: ['system:bootstrappers:managedcluster'] }, expected: { valid: true } },
  { name: 'requester in the bootstrap token group', input: { username: 'x', groups: ['system:bootstrappers'] }, expected: { valid: true } },
  { name: 'requester is a bootstrap token user', input: { username: 'system:bootstrap:abcdef' }, expected: { valid: true } },
  { name: 'requester is a listed bootstrap service account', input: { username: 'system:serviceaccount:open-cluster-management:agent-registration-bootstrap', groups: ['system:serviceaccounts'] }, bootstrapUsers: ['system:serviceaccount:open-cluster-management:agent-registration-bootstrap'], expected: { valid: true } },
  { name: "requester is the cluster's own agent (renewal)", input: { username: goodCn, groups: goodOrgs }, expected: { valid: true } },
  // forged subjects
  { name: "CN is the hub controller's", input: { request: () => request('ocm-ts:hub-controller', goodOrgs) }, expected: { check: 'subject', reason: /^common name ocm-ts:hub-controller is not system:open-cluster-management:cluster1:<agent>$/ } },
  { name: "CN is the hub controller's, no organization", input: { request: () => request('ocm-ts:hub-controller', []) }, expected: { check: 'subject' } },
  { name: "CN is the admin's with system:masters", input: { request: () => request('ocm-ts:admin', ['system:masters']) }, expected: { check: 'subject' } },
  { name: 'agent CN with organization system:masters', input: { request: () => request(goodCn, [`${P}cluster1`, 'system:masters']) }, expected: { check: 'subject', reason: /organization system:masters is not allowed/ } },
  { name: 'agent CN with an extra organization', input: { request: () => request(goodCn, [...goodOrgs, 'system:authenticated']) }, expected: { check: 'subject' } },
  { name: 'organization names another cluster', input: { request: () => request(goodCn, [`${P}cluster2`]) }, expected: { check: 'subject' } },
  { name: 'both cluster groups', input: { request: () => request(goodCn, [`${P}cluster1`, `${P}cluster2`]) }, expected: { check: 'subject' } },
  { name: 'organization only prefix-matches the cluster', input: { request: () => request(goodCn, [`${P}cluster1x`]) }, expected: { check: 'subject' } },
  { name: 'only the managed-clusters group', input: { request: () => request(goodCn, [`${P}managed-clusters`]) }, expected: { check: 'subject', reason: /organization system:open-cluster-management:cluster1 is missing/ } },
  { name: 'no organization', input: { request: () => request(goodCn, []) }, expected: { check: 'subject' } },
  { name: "another cluster's agent, labelled cluster1", input: { request: () => request(`${P}cluster2:x`, [`${P}cluster2`]) }, expected: { check: 'subject' } },
  { name: "cluster1's agent, labelled cluster2", input: { labels: { [CLUSTER_LABEL]: 'cluster2' } }, expected: { check: 'subject' } },
  { name: 'CN only prefix-matches the cluster', input: { request: () => request(`${P}cluster1x:agent1`, goodOrgs) }, expected: { check: 'subject' } },
  { name: 'CN without agent name', input: { request: () => request(`${P}cluster1`, goodOrgs) }, expected: { check: 'subject' } },
  { name: 'CN with an empty agent name', input: { request: () => request(`${P}cluster1:`, goodOrgs) }, expected: { check: 'subject' } },
  { name: 'CN with an extra colon', input: { request: () => request(`${P}cluster1:agent1:extra`, goodOrgs) }, expected: { check: 'subject' } },
  { name: 'an add-on identity of the cluster', input: { request: () => request(`${P}cluster:cluster1:addon:a:agent:a`, goodOrgs) }, expected: { check: 'subject' } },
  { name: 'a second CN after the agent CN', input: { request: () => multiCnRequest([goodCn, 'ocm-ts:hub-controller'], goodOrgs) }, expected: { check: 'subject', reason: /2 common names/ } },
  { name: 'the agent CN twice', input: { request: () => multiCnRequest([goodCn, goodCn], goodOrgs) }, expected: { check: 'subject' } },
  // labels and signer
  { name: 'no cluster-name label', input: { labels: {} }, expected: { check: 'labels' } },
  { name: 'an empty cluster-name label', input: { labels: { [CLUSTER_LABEL]: '' } }, expected: { check: 'labels' } },
  { name: 'an addon-name label', input: { labels: { [CLUSTER_LABEL]: 'cluster1', [ADDON_LABEL]: 'a' } }, expected: { check: 'labels' } },
  { name: 'another signer', input: { signerName: 'example.com/signer' }, expected: { check: 'signer' } },
  { name: 'the kubelet client signer', input: { signerName: 'kubernetes.io/kube-apiserver-client-kubelet' }, expected: { check: 'signer' } },
  // the request itself
  { name: 'not base64', input: { request: async () => '%%%' }, expected: { check: 'request' } },
  { name: 'empty', input: { request: async () => '' }, expected: { check: 'request' } },
  { name: 'not PEM', input: { request: async () => b64('not a pem at all') }, expected: { check: 'request' } },
  { name: 'a private key block', input: { request: async () => b64('-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n') }, expected: { check: 'request' } },
  { name: 'garbage DER', input: { request: async () => b64('-----BEGIN CERTIFICATE REQUEST-----\nAAECAwQ=\n-----END CERTIFICATE REQUEST-----\n') }, expected: { check: 'request' } },
  {
    name: 'two CERTIFICATE REQUEST blocks',
    input: { request: async () => b64(Buffer.from(await request(goodCn, goodOrgs), 'base64').toString() + Buffer.from(await request('ocm-ts:hub-controller', []), 'base64').toString()) },
    expected: { check: 'request' },
  },
  {
    name: 'a broken self-signature',
    input: {
      request: async () => {
        const der = Buffer.from((await createCsr({ commonName: goodCn, organizations: goodOrgs, privateKeyPem: key })).replace(/-----[A-Z ]+-----|\s/g, ''), 'base64');
        der[der.length - 1] ^= 0x01;
        return b64(`-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`);
      },
    },
    expected: { check: 'request' },
  },
  // usages
  { name: 'server auth requested too', input: { usages: [...USAGES, 'server auth'] }, expected: { check: 'usages', reason: /usage server auth is not allowed/ } },
  { name: 'no client auth', input: { usages: ['digital signature'] }, expected: { check: 'usages' } },
  { name: 'no usages', input: { usages: null }, expected: { check: 'usages' } },
  // requester
  { name: 'requester is an ordinary user', input: { username: 'alice', groups: ['system:authenticated'] }, expected: { check: 'requester', reason: /^requester alice is neither a bootstrap identity nor an agent of cluster cluster1$/ } },
  { name: "requester is another cluster's agent", input: { username: `${P}cluster2:agent1`, groups: [`${P}cluster2`] }, expected: { check: 'requester' } },
  { name: 'requester only prefix-matches the cluster', input: { username: `${P}cluster1x:agent1`, groups: [] }, expected: { check: 'requester' } },
  { name: 'requester is the cluster group itself', input: { username: `${P}cluster1`, groups: [] }, expected: { check: 'requester' } },
  { name: 'no requester', input: { username: '', groups: [] }, expected: { check: 'requester' } },
  { name: 'an unlisted service account', input: { username: 'system:serviceaccount:default:x', groups: ['system:serviceaccounts'] }, bootstrapUsers: ['system:serviceaccount:ns:other'], expected: { check: 'requester' } },
];

for (const c of cases) {
  test(`validateClusterCsr: ${c.name}`, async () => {
    const v = validateClusterCsr(await build(c.input), c.bootstrapUsers ? { bootstrapUsers: c.bootstrapUsers } : {});
    if ('valid' in c.expected) {
      assert.equal(v.valid, true, v.valid ? '' : v.reason);
      return;
    }
    assert.equal(v.valid, false, 'must be refused');
    if (v.valid) return;
    assert.equal(v.check, c.expected.check, v.reason);
    if (c.expected.reason) assert.match(v.reason, c.expected.reason);
  });
}

test('validateClusterCsr: garbage objects are invalid, never a throw', () => {
  const garbage = [
    { metadata: {} },
    { metadata: { labels: { [CLUSTER_LABEL]: 'cluster1' } } },
    { metadata: { labels: { [CLUSTER_LABEL]: 'cluster1' } }, spec: { signerName: 'kubernetes.io/kube-apiserver-client', request: 42, usages: 'client auth', groups: 'x' } },
  ] as unknown as CertificateSigningRequest[];
  for (const g of garbage) assert.equal(validateClusterCsr(g).valid, false);
});

async function subjectOf(req: string): Promise<{ commonNames: string[]; organizations: string[] }> {
  const d = decodeCsrRequest(req);
  assert.ok(d.ok);
  return d.subject;
}

test("labelledSubjectProblem: our agent's cluster and add-on CSRs pass", async () => {
  assert.equal(labelledSubjectProblem(agentCsr.metadata.labels, await subjectOf(agentCsr.spec.request)), undefined);
  assert.equal(labelledSubjectProblem(addonCsr.metadata.labels, await subjectOf(addonCsr.spec.request)), undefined);
});

test('labelledSubjectProblem table', async () => {
  const addonLabels = { [CLUSTER_LABEL]: 'cluster1', [ADDON_LABEL]: 'addon1' };
  const addonCn = `${P}cluster:cluster1:addon:addon1:agent:addon1`;
  const addonGroups = [`${P}cluster:cluster1:addon:addon1`, `${P}addon:addon1`, 'system:authenticated'];
  const rows: { name: string; labels?: Record<string, string>; cn: string; orgs: string[]; ok: boolean }[] = [
    { name: 'no OCM label: any subject (an admin minting alice)', labels: {}, cn: 'alice', orgs: ['team'], ok: true },
    { name: 'no labels at all', cn: 'alice', orgs: [], ok: true },
    { name: 'cluster agent', labels: { [CLUSTER_LABEL]: 'cluster1' }, cn: goodCn, orgs: goodOrgs, ok: true },
    { name: 'hub controller labelled as a cluster', labels: { [CLUSTER_LABEL]: 'cluster1' }, cn: 'ocm-ts:hub-controller', orgs: [], ok: false },
    { name: "cluster2's agent labelled cluster1", labels: { [CLUSTER_LABEL]: 'cluster1' }, cn: `${P}cluster2:x`, orgs: [`${P}cluster2`], ok: false },
    { name: 'cluster agent with system:masters', labels: { [CLUSTER_LABEL]: 'cluster1' }, cn: goodCn, orgs: [...goodOrgs, 'system:masters'], ok: false },
    { name: "add-on agent with OCM's default groups", labels: addonLabels, cn: addonCn, orgs: addonGroups, ok: true },
    { name: 'add-on agent without groups', labels: addonLabels, cn: addonCn, orgs: [], ok: true },
    { name: 'add-on agent with another agent name', labels: addonLabels, cn: `${P}cluster:cluster1:addon:addon1:agent:other`, orgs: [], ok: true },
    { name: "the cluster's agent labelled as an add-on", labels: addonLabels, cn: goodCn, orgs: goodOrgs, ok: false },
    { name: "another add-on's identity", labels: addonLabels, cn: `${P}cluster:cluster1:addon:addon2:agent:addon2`, orgs: [], ok: false },
    { name: "another cluster's add-on identity", labels: addonLabels, cn: `${P}cluster:cluster2:addon:addon1:agent:addon1`, orgs: [], ok: false },
    { name: 'add-on agent with system:masters', labels: addonLabels, cn: addonCn, orgs: ['system:masters'], ok: false },
    { name: "add-on agent with the cluster's group", labels: addonLabels, cn: addonCn, orgs: [`${P}cluster1`], ok: false },
    { name: 'add-on CN with an empty agent name', labels: addonLabels, cn: `${P}cluster:cluster1:addon:addon1:agent:`, orgs: [], ok: false },
    { name: 'add-on CN with an extra colon', labels: addonLabels, cn: `${P}cluster:cluster1:addon:addon1:agent:a:b`, orgs: [], ok: false },
    { name: 'empty add-on label', labels: { [CLUSTER_LABEL]: 'cluster1', [ADDON_LABEL]: '' }, cn: `${P}cluster:cluster1:addon::agent:x`, orgs: [], ok: false },
  ];
  for (const r of rows) {
    const problem = labelledSubjectProblem(r.labels, await subjectOf(await request(r.cn, r.orgs)));
    assert.equal(problem === undefined, r.ok, `${r.name}: ${problem ?? 'passed'}`);
  }
  const twoCns = await subjectOf(await multiCnRequest([goodCn, 'ocm-ts:hub-controller'], goodOrgs));
  assert.match(labelledSubjectProblem({ [CLUSTER_LABEL]: 'cluster1' }, twoCns) ?? '', /2 common names/);
});
