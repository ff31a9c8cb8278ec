import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../api/cluster.js';
import type { CertificateSigningRequest } from '../api/core.js';
import { runChecks } from './checks.js';
import type { DoctorFacts } from './facts.js';
import { buildReport, renderReport } from './report.js';

const NOW = Date.parse('2025-06-01T12:00:00Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const CTX = { cluster: 'c1', hubKubeconfig: 'hub.kubeconfig', spokeKubeconfig: 'spoke.kubeconfig' };

function cluster(over: { accepted?: boolean; joined?: boolean; clock?: 'True' | 'False' } = {}): ManagedCluster {
  const cond = (type: string, status: string, reason: string) => ({ type, status, reason, message: reason, lastTransitionTime: iso(NOW - 3600_000) });
  return {
    apiVersion: 'cluster.open-cluster-management.io/v1',
    kind: 'ManagedCluster',
    metadata: { name: 'c1' },
    spec: { hubAcceptsClient: over.accepted ?? true, leaseDurationSeconds: 60 },
    status: {
      conditions: [
        cond('ManagedClusterJoined', over.joined === false ? 'False' : 'True', 'ManagedClusterJoined'),
        cond('ManagedClusterConditionClockSynced', over.clock ?? 'True', over.clock === 'False' ? 'ManagedClusterClockOutOfSync' : 'ManagedClusterClockSynced'),
      ],
    },
  } as ManagedCluster;
}

function csr(name: string, state: 'pending' | 'approved' | 'denied' | 'failed', createdAgoMs = 60_000): CertificateSigningRequest {
  const conditions = { pending: [], approved: [{ type: 'Approved', status: 'True' as const }], denied: [{ type: 'Denied', status: 'True' as const, message: 'no' }], failed: [{ type: 'Approved', status: 'True' as const }, { type: 'Failed', status: 'True' as const, reason: 'SignerValidationFailure', message: 'bad subject' }] }[state];
  return {
    apiVersion: 'certificates.k8s.io/v1',
    kind: 'CertificateSigningRequest',
    metadata: { name, creationTimestamp: iso(NOW - createdAgoMs) },
    spec: { request: '', signerName: 'kubernetes.io/kube-apiserver-client' },
    status: { conditions, ...(state === 'approved' ? { certificate: 'Y2VydA==' } : {}) },
  };
}

function healthy(): DoctorFacts {
  return {
    cluster: 'c1',
    nowMs: NOW,
    hub: { server: 'https://hub:6443', probe: { status: 200, serverTimeMs: NOW }, version: 'v1.30.0' },
    bootstrap: { source: 'boot.kubeconfig', server: 'https://hub:6443', probe: { status: 200 }, tokenId: 'abcdef', tokenSecret: { found: true, expiresAtMs: NOW + 3600_000 } },
    managedCluster: cluster(),
    csrs: [csr('c1-old', 'denied', 7200_000), csr('c1-new', 'approved')],
    issuedCert: { commonName: 'system:open-cluster-management:c1:a', notBeforeMs: NOW - 10 * 86400_000, notAfterMs: NOW + 90 * 86400_000, csr: 'c1-new' },
    lease: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'managed-cluster-lease' }, spec: { renewTime: iso(NOW - 20_000) } },
    spoke: {
      server: 'https://spoke:6443',
      probe: { status: 200, serverTimeMs: NOW + 1000 },
      bootstrapSecretPresent: true,
      hubSecret: { present: true, clusterName: 'c1', server: 'https://hub:6443', probe: { status: 200 }, cert: { commonName: 'system:open-cluster-management:c1:a', notBeforeMs: NOW - 10 * 86400_000, notAfterMs: NOW + 90 * 86400_000 } },
    },
    agentHealth: { url: 'https://127.0.0.1:8443', probe: { status: 200 } },
  };
}

function first(f: DoctorFacts): { id?: string; problem?: string; fix?: string; statuses: string } {
  const checks = runChecks(f, CTX);
  const bad = checks.find((c) => c.status === 'fail');
  return { ...(bad ? { id: bad.id, problem: bad.problem ?? '', fix: bad.fix ?? '' } : {}), statuses: checks.map((c) => `${c.id}:${c.status}`).join(' ') };
}

test('healthy facts: every link ok, the newest CSR counts (an old denied one does not)', () => {
  const checks = runChecks(healthy(), CTX);
  assert.deepEqual(checks.filter((c) => c.status !== 'ok').map((c) => c.id), []);
  const cert = checks.find((c) => c.id === 'certificate')!;
  assert.match(cert.detail, /expires in 90d, rotation in about 70d$/);
  const r = buildReport('c1', 'https://hub:6443', checks);
  assert.equal(r.healthy, true);
  assert.match(renderReport(r), /^c1 is healthy$/m);
});

test('each broken link is the first failure, with its fix', () => {
  const cases: [string, (f: DoctorFacts) => void, string, RegExp][] = [
    ['hub down', (f) => (f.hub.probe = { error: 'connect ECONNREFUSED' }), 'hub', /start the hub/],
    ['bootstrap CA', (f) => (f.bootstrap!.probe = { error: 'SELF_SIGNED_CERT_IN_CHAIN: x', tlsVerifyFailed: true }), 'bootstrap-ca', /ocm-ts hub token --kubeconfig hub\.kubeconfig --create .* --kubeconfig spoke\.kubeconfig$/],
    ['token expired', (f) => (f.bootstrap!.tokenSecret = { found: true, expiresAtMs: NOW - 1000 }), 'bootstrap-token', /ocm-ts join/],
    ['token 401', (f) => (f.bootstrap!.probe = { status: 401 }), 'bootstrap-token', /ocm-ts join/],
    ['no cluster', (f) => (f.managedCluster = null), 'cluster', /ocm-ts join/],
    ['csr pending', (f) => (f.csrs = [csr('c1-x', 'pending')]), 'csr', /^ocm-ts accept c1 --kubeconfig hub\.kubeconfig$/],
    ['csr failed', (f) => (f.csrs = [csr('c1-x', 'failed')]), 'csr', /delete csr c1-x/],
    ['no csr, not joined', (f) => ((f.csrs = []), (f.managedCluster = cluster({ joined: false }))), 'csr', /ocm-ts join/],
    ['not accepted', (f) => (f.managedCluster = cluster({ accepted: false })), 'accepted', /^ocm-ts accept c1/],
    ['cert expired', (f) => (f.spoke!.hubSecret!.cert = { commonName: 'x', notBeforeMs: NOW - 2000, notAfterMs: NOW - 1000 }), 'certificate', /delete secret hub-kubeconfig-secret/],
    ['hub secret missing', (f) => (f.spoke!.hubSecret = { present: false }), 'hub-secret', /ocm-ts join/],
    ['hub secret 401', (f) => (f.spoke!.hubSecret!.probe = { status: 401 }), 'hub-secret', /delete secret/],
    ['lease stale', (f) => (f.lease!.spec!.renewTime = iso(NOW - 301_000)), 'lease', /start the agent again/],
    ['clock condition', (f) => (f.managedCluster = cluster({ clock: 'False' })), 'clock', /NTP/],
    ['clock measured', (f) => (f.spoke!.probe.serverTimeMs = NOW + 120_000), 'clock', /NTP/],
    ['agent unhealthy', (f) => (f.agentHealth = { url: 'https://a', probe: { status: 500 }, body: '[-]hub-kube-config failed' }), 'agent-health', /agent's log/],
  ];
  for (const [name, breakIt, id, fix] of cases) {
    const f = healthy();
    breakIt(f);
    const got = first(f);
    assert.equal(got.id, id, `${name}: ${got.statuses}`);
    assert.match(got.fix ?? '', fix, name);
    assert.ok((got.problem ?? '').length > 0, name);
  }
});

test('links that cannot be checked are skipped, not failed', () => {
  const f = healthy();
  delete f.spoke;
  delete f.bootstrap;
  delete f.agentHealth;
  const checks = runChecks(f, { cluster: 'c1', hubKubeconfig: 'h' });
  assert.deepEqual(checks.filter((c) => c.status === 'skip').map((c) => c.id), ['bootstrap-ca', 'bootstrap-token', 'hub-secret', 'agent-health']);
  assert.equal(checks.some((c) => c.status === 'fail'), false);
  // The certificate then comes from the newest signed CSR.
  assert.match(checks.find((c) => c.id === 'certificate')!.detail, /^CSR c1-new: /);
});

test('the text report: a mark per link, then the first problem and its fix', () => {
  const f = healthy();
  f.csrs = [csr('c1-x', 'pending')];
  f.managedCluster = cluster({ accepted: false });
  const text = renderReport(buildReport('c1', 'https://hub:6443', runChecks(f, CTX)));
  assert.match(text, /^✓ hub reachable\s+https:\/\/hub:6443 \(v1\.30\.0\)$/m);
  assert.match(text, /^✗ CSR approved and signed\s+c1-x pending$/m);
  assert.match(text, /^✗ accepted by the hub\s+hubAcceptsClient: false$/m);
  assert.match(text, /\n\n✗ CSR approved and signed: CSR c1-x of c1 waits for approval\n  fix: ocm-ts accept c1 --kubeconfig hub\.kubeconfig\n$/);
});
