import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { RegistrationConfig } from '../../api/addon.js';
import { configHash, registrationConfigs, setSubjectForRegistration } from './registration-config.js';

const C = 'cluster1';
const A = 'addon1';
const defaultUser = 'system:open-cluster-management:cluster:cluster1:addon:addon1:agent:addon1';
const defaultGroup = 'system:open-cluster-management:cluster:cluster1:addon:addon1';

test('registrationConfigs table', () => {
  const cases: {
    name: string;
    regs?: RegistrationConfig[];
    hosted?: boolean;
    expected: { secretName: string; registration: RegistrationConfig; hosted: boolean }[];
    skipped?: string[];
  }[] = [
    { name: 'no registration', expected: [] },
    {
      name: 'with kubeClient signer',
      regs: [{ type: 'kubeClient', kubeClient: { driver: 'csr' } }],
      expected: [{ secretName: 'addon1-hub-kubeconfig', registration: { type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user: defaultUser, groups: [defaultGroup] } } }, hosted: false }],
    },
    {
      name: 'with default signer hosted mode',
      regs: [{ type: 'kubeClient', kubeClient: { driver: 'csr' } }],
      hosted: true,
      expected: [{ secretName: 'addon1-hub-kubeconfig', registration: { type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user: defaultUser, groups: [defaultGroup] } } }, hosted: true }],
    },
    {
      name: 'with customized signer',
      regs: [{ type: 'customSigner', customSigner: { signerName: 'example.com/signer', subject: { user: 'u', groups: ['g'], organizationUnits: ['ou'] } } }],
      expected: [
        {
          secretName: 'addon1-example.com-signer-client-cert',
          registration: { type: 'customSigner', customSigner: { signerName: 'example.com/signer', subject: { user: 'u', groups: ['g'], organizationUnits: ['ou'] } } },
          hosted: false,
        },
      ],
    },
    { name: 'KubeClient with nil config - should skip', regs: [{ type: 'kubeClient' }], expected: [], skipped: ['kube client is not configured'] },
    { name: 'CustomSigner with nil config - should skip', regs: [{ type: 'customSigner' }], expected: [], skipped: ['customer signer is not configured'] },
    { name: 'CustomSigner with empty SignerName - should skip', regs: [{ type: 'customSigner', customSigner: { signerName: '' } }], expected: [], skipped: ['customer signer is not configured'] },
    { name: 'Unsupported registration type - should skip', regs: [{ type: 'other' as 'kubeClient' }], expected: [], skipped: ['unsupported registration type'] },
    {
      name: 'Token driver config',
      regs: [{ type: 'kubeClient', kubeClient: { driver: 'token', subject: { user: 'x', groups: ['y'] } } }],
      expected: [{ secretName: 'addon1-hub-kubeconfig', registration: { type: 'kubeClient', kubeClient: { driver: 'token', subject: { user: 'system:serviceaccount:cluster1:addon1-agent' } } }, hosted: false }],
    },
    {
      name: 'Mixed valid and invalid configs',
      regs: [{ type: 'kubeClient' }, { type: 'customSigner', customSigner: { signerName: 'a/b' } }, { type: 'customSigner' }],
      expected: [{ secretName: 'addon1-a-b-client-cert', registration: { type: 'customSigner', customSigner: { signerName: 'a/b', subject: { user: defaultUser } } }, hosted: false }],
      skipped: ['kube client is not configured', 'customer signer is not configured'],
    },
    {
      name: 'CustomSigner with default subject',
      regs: [{ type: 'customSigner', customSigner: { signerName: 'a/b' } }],
      expected: [{ secretName: 'addon1-a-b-client-cert', registration: { type: 'customSigner', customSigner: { signerName: 'a/b', subject: { user: defaultUser } } }, hosted: false }],
    },
  ];
  for (const c of cases) {
    const res = registrationConfigs({ clusterName: C, addonName: A, registrations: c.regs, installationNamespace: 'ns', hosted: c.hosted ?? false });
    assert.deepEqual(
      res.configs.map((x) => ({ secretName: x.secretName, registration: x.registration, hosted: x.agentRunningOutsideManagedCluster })),
      c.expected,
      c.name,
    );
    assert.deepEqual(res.skipped.map((s) => s.reason), c.skipped ?? [], c.name);
    for (const x of res.configs) assert.match(x.hash, /^[0-9a-f]{64}$/);
  }
});

test('config hash: status fields and install options', () => {
  const csr: RegistrationConfig = { type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user: 'u' } } };
  const token: RegistrationConfig = { type: 'kubeClient', kubeClient: { driver: 'token', subject: { user: 'u' } } };
  assert.notEqual(configHash(csr, 'ns', false), configHash(token, 'ns', false), 'csr vs token');
  assert.notEqual(configHash(csr, 'ns', false), configHash({ type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user: 'v' } } }, 'ns', false), 'subject');
  assert.equal(configHash(csr, 'ns', false), configHash(structuredClone(csr), 'ns', false), 'same');
  assert.notEqual(configHash({ type: 'customSigner', customSigner: { signerName: 'a/b' } }, 'ns', false), configHash({ type: 'customSigner', customSigner: { signerName: 'a/c' } }, 'ns', false), 'signer');
  assert.notEqual(configHash(csr, 'ns', false), configHash(csr, 'ns2', false), 'install namespace');
  assert.notEqual(configHash(csr, 'ns', false), configHash(csr, 'ns', true), 'hosted');
});

test('setSubjectForRegistration table', () => {
  const cases: { name: string; input: RegistrationConfig; expected: RegistrationConfig }[] = [
    { name: 'csr fills missing user and groups', input: { type: 'kubeClient', kubeClient: { driver: 'csr' } }, expected: { type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user: defaultUser, groups: [defaultGroup] } } } },
    { name: 'csr keeps given user', input: { type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user: 'me' } } }, expected: { type: 'kubeClient', kubeClient: { driver: 'csr', subject: { user: 'me', groups: [defaultGroup] } } } },
    { name: 'token always token subject', input: { type: 'kubeClient', kubeClient: { driver: 'token', subject: { user: 'me', groups: ['g'] } } }, expected: { type: 'kubeClient', kubeClient: { driver: 'token', subject: { user: 'system:serviceaccount:cluster1:addon1-agent' } } } },
    { name: 'nil kubeClient untouched', input: { type: 'kubeClient' }, expected: { type: 'kubeClient' } },
    { name: 'nil customSigner untouched', input: { type: 'customSigner' }, expected: { type: 'customSigner' } },
    { name: 'custom signer: default user only', input: { type: 'customSigner', customSigner: { signerName: 'a/b', subject: { groups: ['g'] } } }, expected: { type: 'customSigner', customSigner: { signerName: 'a/b', subject: { groups: ['g'], user: defaultUser } } } },
    { name: 'unknown driver: no defaults', input: { type: 'kubeClient', kubeClient: {} }, expected: { type: 'kubeClient', kubeClient: {} } },
  ];
  for (const c of cases) {
    const before = structuredClone(c.input);
    assert.deepEqual(setSubjectForRegistration(c.input, C, A), c.expected, c.name);
    assert.deepEqual(c.input, before, `${c.name}: input untouched`);
  }
});
