import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedClusterAddOn, RegistrationConfig } from '../../api/addon.js';
import { nullLogger } from '../../util/logger.js';
import { createRegistrationSync, withKubeClientDriver, REGISTRATION_DEFAULT_KEY, type StartRegistrationInput } from './registration-sync.js';

const signal = new AbortController().signal;

function addon(name: string, regs?: RegistrationConfig[], opts: { namespace?: string; hosted?: boolean; deleting?: boolean } = {}): ManagedClusterAddOn {
  return {
    metadata: {
      name,
      namespace: 'cluster1',
      ...(opts.hosted ? { annotations: { 'addon.open-cluster-management.io/hosting-cluster-name': 'mgmt' } } : {}),
      ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
    },
    status: { ...(regs ? { registrations: regs } : {}), ...(opts.namespace ? { namespace: opts.namespace } : {}) },
  };
}

const csrReg = (user?: string): RegistrationConfig => ({ type: 'kubeClient', kubeClient: { driver: 'csr', ...(user ? { subject: { user } } : {}) } });

function harness(initial: ManagedClusterAddOn[]) {
  const addons = new Map(initial.map((a) => [a.metadata.name!, a]));
  const actions: string[] = [];
  const started: StartRegistrationInput[] = [];
  const enqueued: string[] = [];
  const s = createRegistrationSync({
    clusterName: 'cluster1',
    kubeClientDriver: 'csr',
    getAddon: (n) => addons.get(n),
    patchAddonStatus: async (n, patch) => {
      actions.push(`patch:${n}:${JSON.stringify(patch)}`);
    },
    deleteSecret: async (ns, name, hosted) => {
      actions.push(`delete:${hosted ? 'management' : 'spoke'}:${ns}/${name}`);
    },
    startRegistration: (i) => {
      started.push(i);
    },
    enqueue: (k) => enqueued.push(k),
    log: nullLogger(),
  });
  return { s, addons, actions, started, enqueued };
}

test('addon registration not enabled: nothing', async () => {
  const h = harness([addon('addon1')]);
  await h.s.sync('addon1', signal);
  assert.deepEqual(h.actions, []);
  assert.equal(h.s.state().size, 0);
});

test('ensureDriver patches the first kubeClient registration, then returns', async () => {
  const h = harness([addon('addon1', [{ type: 'kubeClient', kubeClient: {} }])]);
  await h.s.sync('addon1', signal);
  assert.equal(h.actions.length, 1);
  assert.match(h.actions[0]!, /^patch:addon1:/);
  assert.match(h.actions[0]!, /"driver":"csr"/);
  assert.equal(h.started.length, 0);
});

test('registration lifecycle table', async (t) => {
  const cases: {
    name: string;
    before: ManagedClusterAddOn[];
    after?: ManagedClusterAddOn[];
    key?: string;
    actions: string[];
    running: { addon: string; hosted: boolean; namespace: string }[];
  }[] = [
    { name: 'addon registration enabled', before: [addon('addon1', [csrReg()])], actions: [], running: [{ addon: 'addon1', hosted: false, namespace: 'open-cluster-management-agent-addon' }] },
    {
      name: 'addon registration updated',
      before: [addon('addon1', [csrReg()])],
      after: [addon('addon1', [csrReg('other-user')])],
      actions: ['delete:spoke:open-cluster-management-agent-addon/addon1-hub-kubeconfig'],
      running: [{ addon: 'addon1', hosted: false, namespace: 'open-cluster-management-agent-addon' }],
    },
    {
      name: 'addon install namespace updated',
      before: [addon('addon1', [csrReg()])],
      after: [addon('addon1', [csrReg()], { namespace: 'ns2' })],
      actions: ['delete:spoke:open-cluster-management-agent-addon/addon1-hub-kubeconfig'],
      running: [{ addon: 'addon1', hosted: false, namespace: 'ns2' }],
    },
    { name: 'addon is deleted', before: [addon('addon1', [csrReg()])], after: [], actions: ['delete:spoke:open-cluster-management-agent-addon/addon1-hub-kubeconfig'], running: [] },
    { name: 'addon being deleted keeps secrets', before: [addon('addon1', [csrReg()])], after: [addon('addon1', [csrReg('x')], { deleting: true })], actions: [], running: [{ addon: 'addon1', hosted: false, namespace: 'open-cluster-management-agent-addon' }] },
    { name: 'hosted addon registration enabled', before: [addon('addon1', [csrReg()], { hosted: true })], actions: [], running: [{ addon: 'addon1', hosted: true, namespace: 'open-cluster-management-agent-addon' }] },
    {
      name: 'hosted addon registration updated',
      before: [addon('addon1', [csrReg()], { hosted: true })],
      after: [addon('addon1', [csrReg('u2')], { hosted: true })],
      actions: ['delete:management:open-cluster-management-agent-addon/addon1-hub-kubeconfig'],
      running: [{ addon: 'addon1', hosted: true, namespace: 'open-cluster-management-agent-addon' }],
    },
    {
      name: 'deploy mode changes from hosted to default',
      before: [addon('addon1', [csrReg()], { hosted: true })],
      after: [addon('addon1', [csrReg()])],
      actions: ['delete:management:open-cluster-management-agent-addon/addon1-hub-kubeconfig'],
      running: [{ addon: 'addon1', hosted: false, namespace: 'open-cluster-management-agent-addon' }],
    },
    {
      name: 'deploy mode changes from default to hosted',
      before: [addon('addon1', [csrReg()])],
      after: [addon('addon1', [csrReg()], { hosted: true })],
      actions: ['delete:spoke:open-cluster-management-agent-addon/addon1-hub-kubeconfig'],
      running: [{ addon: 'addon1', hosted: true, namespace: 'open-cluster-management-agent-addon' }],
    },
    { name: 'hosted addon is deleted', before: [addon('addon1', [csrReg()], { hosted: true })], after: [], actions: ['delete:management:open-cluster-management-agent-addon/addon1-hub-kubeconfig'], running: [] },
    {
      name: 'resync',
      before: [addon('addon1', [csrReg()]), addon('addon2', [{ type: 'customSigner', customSigner: { signerName: 'a.io/s' } }])],
      after: [addon('addon1', [csrReg()])],
      key: REGISTRATION_DEFAULT_KEY,
      actions: ['delete:spoke:open-cluster-management-agent-addon/addon2-a.io-s-client-cert'],
      running: [{ addon: 'addon1', hosted: false, namespace: 'open-cluster-management-agent-addon' }],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const h = harness(c.before);
      for (const a of c.before) await h.s.sync(a.metadata.name!, signal);
      const firstStarts = [...h.started];
      if (c.after) {
        h.addons.clear();
        for (const a of c.after) h.addons.set(a.metadata.name!, a);
        if (c.key) await h.s.sync(c.key, signal);
        else for (const a of new Set([...c.before, ...c.after].map((x) => x.metadata.name!))) await h.s.sync(a, signal);
      }
      assert.deepEqual(h.actions, c.actions);
      const running = [...h.s.state()].flatMap(([a, cs]) => cs.map((x) => ({ addon: a, hosted: x.agentRunningOutsideManagedCluster, namespace: x.installationNamespace })));
      assert.deepEqual(running, c.running);
      // stopped registrations had their signal aborted
      const stoppedCount = firstStarts.filter((s) => s.signal.aborted).length;
      assert.equal(stoppedCount, c.actions.length);
      if (c.key === REGISTRATION_DEFAULT_KEY) assert.deepEqual(h.enqueued, ['addon1']);
    });
  }
});

test('a failed start is reported and not recorded', async () => {
  const h = harness([addon('addon1', [csrReg()])]);
  const failing = createRegistrationSync({
    clusterName: 'cluster1',
    kubeClientDriver: 'csr',
    getAddon: (n) => h.addons.get(n),
    patchAddonStatus: async () => {},
    deleteSecret: async () => {},
    startRegistration: () => {
      throw new Error('failed to create driver for addon addon1: CSR configuration is nil for addon addon1');
    },
    enqueue: () => {},
    log: nullLogger(),
  });
  await assert.rejects(failing.sync('addon1', signal), /failed to create driver for addon addon1/);
  assert.equal(failing.state().size, 0);
});

test('withKubeClientDriver', () => {
  assert.equal(withKubeClientDriver(addon('a', [csrReg()]), 'csr'), undefined);
  assert.equal(withKubeClientDriver(addon('a', [{ type: 'customSigner', customSigner: { signerName: 'a/b' } }]), 'csr'), undefined);
  const next = withKubeClientDriver(addon('a', [{ type: 'customSigner', customSigner: { signerName: 'a/b' } }, { type: 'kubeClient' }, { type: 'kubeClient' }]), 'token');
  assert.deepEqual(next?.status?.registrations?.map((r) => r.kubeClient), [undefined, { driver: 'token' }, undefined]);
  assert.deepEqual(withKubeClientDriver(addon('a', [csrReg('u')]), 'token')?.status?.registrations?.[0]?.kubeClient, { driver: 'token', subject: { user: 'u' } });
});
