import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { buildHubCommand, type HubCommandOptions } from './hub-command.js';
import { CliUsageError } from './usage-error.js';
import { parseCommand } from '../../test/helpers/parse-command.js';

const dir = mkdtempSync(join(tmpdir(), 'ocm-ts-hub-flags-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const kubeconfig = join(dir, 'kubeconfig');
writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');

const parse = (args: string[]): Promise<HubCommandOptions> => parseCommand<HubCommandOptions>(buildHubCommand, args);

// Every argument the cluster-manager operator's registration-controller Deployment template can
// pass after `/registration controller` (the importer, AWS and gRPC ones included), literally.
const OPERATOR_TEMPLATE_ARGS = [
  '--feature-gates=ClusterProfile=true',
  '--feature-gates=ManagedClusterAutoApproval=true',
  '--cluster-auto-approval-users=system:serviceaccount:open-cluster-management:agent-registration-bootstrap',
  '--agent-image=quay.io/open-cluster-management/registration-operator:latest',
  '--bootstrap-serviceaccount=open-cluster-management/agent-registration-bootstrap',
  '--image-pull-secret-name=open-cluster-management-image-pull-credentials',
  '--import-renderers=render-auto,render-from-config-secret',
  `--kubeconfig=${kubeconfig}`,
  '--hub-cluster-arn=arn:aws:eks:us-west-2:123456789012:cluster/hub',
  '--enabled-registration-drivers=csr',
  '--auto-approved-csr-users=system:serviceaccount:open-cluster-management:agent-registration-bootstrap',
  '--auto-approved-arn-patterns=arn:aws:eks:us-west-2:123456789012:cluster/.*',
  '--labels=app=ocm,team=platform',
  '--aws-resource-tags=product:v1:tenant:app-name=My-App',
  '--grpc-ca-file=/var/run/secrets/hub/grpc/certs/tls.crt',
  '--grpc-key-file=/var/run/secrets/hub/grpc/certs/tls.key',
  '--auto-approved-grpc-users=system:serviceaccount:open-cluster-management:grpc-bootstrap',
  '--tls-min-version=VersionTLS12',
  '--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
];

test('should accept every argument of the cluster-manager operator template', async () => {
  const o = await parse(OPERATOR_TEMPLATE_ARGS);
  assert.equal(o.mode, 'kubeconfig');
  assert.equal(o.hub.featureGates['ClusterProfile'], true);
  assert.equal(o.hub.featureGates['ManagedClusterAutoApproval'], true);
  assert.deepEqual(o.hub.registrationDrivers, ['csr']);
  assert.deepEqual(o.hub.autoApprovedCsrUsers, ['system:serviceaccount:open-cluster-management:agent-registration-bootstrap']);
  assert.deepEqual(o.hub.labels, { app: 'ocm', team: 'platform' });
  assert.equal(o.ocm.tls.minVersion, 'TLSv1.2');
  assert.match(o.ocm.tls.ciphers ?? '', /ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256/);
  // the AWS and gRPC settings have no driver to use them: said so, not silently dropped
  for (const f of ['--hub-cluster-arn', '--auto-approved-arn-patterns', '--aws-resource-tags', '--grpc-ca-file', '--grpc-key-file', '--auto-approved-grpc-users']) {
    assert.ok(o.warnings.some((w) => w.startsWith(`${f} ignored`)), f);
  }
});

test('should run the importer under --feature-gates=ClusterImporter=true with its flags', async () => {
  const o = await parse([...OPERATOR_TEMPLATE_ARGS, '--feature-gates=ClusterImporter=true', '--hub-apiserver-url=https://hub.example.com:6443', '--namespace=ocm-hub']);
  assert.equal(o.hub.featureGates['ClusterImporter'], true);
  assert.deepEqual(o.hub.importer.renderers, ['render-auto', 'render-from-config-secret']);
  assert.equal(o.hub.importer.agentImage, 'quay.io/open-cluster-management/registration-operator:latest');
  assert.equal(o.hub.importer.hubApiServerUrl, 'https://hub.example.com:6443');
  assert.equal(o.hub.importer.operatorNamespace, 'ocm-hub');
  assert.ok(!o.warnings.some((w) => w.includes('ClusterImporter')), o.warnings.join('\n'));
});

test('should default to OCM: HTTPS health on 0.0.0.0:8443, leader election with OCM lock and timings, QPS 50 burst 100', async () => {
  const o = await parse([`--kubeconfig=${kubeconfig}`, '--namespace=ocm-hub']);
  assert.equal(o.listen, '0.0.0.0:8443');
  assert.deepEqual(o.ocm.throttle, { qps: 50, burst: 100 });
  const le = o.ocm.leaderElection;
  assert.ok(le);
  assert.equal(le.namespace, 'ocm-hub');
  assert.equal(le.name, 'registration-controller-lock');
  assert.deepEqual([le.leaseDurationMs, le.renewDeadlineMs, le.retryPeriodMs], [137_000, 107_000, 26_000]);
  assert.notEqual(le.identity, '');
  // embedded mode keeps --listen for the API server and runs alone
  const e = await parse(['--data-dir', dir, '--listen', '127.0.0.1:0']);
  assert.equal(e.listen, undefined);
  assert.equal(e.ocm.leaderElection, undefined);
  assert.equal(e.maxConnectionsPerAddress, undefined);
});

test('should take --max-connections-per-address in embedded mode only, as a positive integer', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-hub-cli-'));
  assert.equal((await parse(['--data-dir', dir, '--max-connections-per-address', '20000'])).maxConnectionsPerAddress, 20000);
  for (const bad of ['0', '-1', '1.5', 'many']) {
    await assert.rejects(parse(['--data-dir', dir, '--max-connections-per-address', bad]), (e) => e instanceof CliUsageError && e.message === `--max-connections-per-address must be a positive integer, got "${bad}"`);
  }
  const kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\n');
  await assert.rejects(parse([`--kubeconfig=${kubeconfig}`, '--max-connections-per-address', '5000']), (e) => e instanceof CliUsageError && e.message === '--max-connections-per-address needs --data-dir');
});

test('should take the generic flags of OCM controllers', async () => {
  const o = await parse([
    `--kubeconfig=${kubeconfig}`, '--disable-leader-election', '--kube-api-qps=12.5', '--kube-api-burst=30', '--listen=127.0.0.1:0', '--tls-min-version=VersionTLS13',
  ]);
  assert.equal(o.ocm.leaderElection, undefined);
  assert.deepEqual(o.ocm.throttle, { qps: 12.5, burst: 30 });
  assert.equal(o.listen, '127.0.0.1:0');
  assert.equal(o.ocm.tls.minVersion, 'TLSv1.3');
  const g = await parse([
    `--kubeconfig=${kubeconfig}`, '--enabled-registration-drivers=csr,grpc', '--grpc-ca-file=ca.crt', '--grpc-key-file=ca.key',
    '--auto-approved-grpc-users=system:bootstrap:abc', '--grpc-signing-duration=1h', '--grpc-server-bindport=9090', '--broker-heartbeat-interval=20s',
  ]);
  assert.deepEqual(g.hub.registrationDrivers, ['csr', 'grpc']);
  assert.deepEqual(g.hub.grpc, {
    caFile: 'ca.crt', keyFile: 'ca.key', autoApprovedUsers: ['system:bootstrap:abc'], signingDurationMs: 3_600_000,
    server: { listen: ':9090', heartbeatIntervalMs: 20_000, heartbeatDisabled: false },
  });
  const t = await parse([`--kubeconfig=${kubeconfig}`, '--leader-election-lease-duration=15s', '--leader-election-renew-deadline=10s', '--leader-election-retry-period=2s']);
  assert.deepEqual([t.ocm.leaderElection?.leaseDurationMs, t.ocm.leaderElection?.renewDeadlineMs, t.ocm.leaderElection?.retryPeriodMs], [15_000, 10_000, 2_000]);
});

const refused: [string, string[], RegExp][] = [
  ['awsirsa', ['--enabled-registration-drivers=csr,awsirsa'], /^--enabled-registration-drivers: awsirsa needs AWS/],
  ['grpc without its CA', ['--enabled-registration-drivers=grpc'], /^--enabled-registration-drivers=grpc needs --grpc-ca-file and --grpc-key-file/],
  ['a gRPC port that is not a number', ['--enabled-registration-drivers=grpc', '--grpc-ca-file=c', '--grpc-key-file=k', '--grpc-server-bindport=http'], /^--grpc-server-bindport must be a port number/],
  ['an unknown import renderer', ['--feature-gates=ClusterImporter=true', '--import-renderers=render-auto,helm'], /^--import-renderers: unknown importer renderer helm/],
  ['a bootstrap service account without namespace', ['--feature-gates=ClusterImporter=true', '--bootstrap-serviceaccount=agent-registration-bootstrap'], /^--bootstrap-serviceaccount must be NAMESPACE\/NAME/],
  ['TLS version', ['--tls-min-version=VersionTLS10'], /^--tls-min-version: unsupported TLS version "VersionTLS10"/],
  ['cipher', ['--tls-cipher-suites=TLS_RSA_WITH_RC4_128_SHA'], /^--tls-cipher-suites: unsupported cipher suite/],
  ['qps', ['--kube-api-qps=0'], /^--kube-api-qps must be a positive number/],
  ['burst', ['--kube-api-burst=1.5'], /^--kube-api-burst must be a positive integer/],
  ['renew deadline', ['--leader-election-renew-deadline=200s'], /^--leader-election-\*: leaseDuration must be greater than renewDeadline/],
  ['lease duration', ['--leader-election-lease-duration=soon'], /--leader-election-lease-duration/],
  ['grpc signing duration', ['--grpc-signing-duration=-1h'], /--grpc-signing-duration/],
  ['namespace', ['--namespace=Not_A_Namespace'], /^--namespace must be a namespace name/],
];
for (const [what, args, message] of refused) {
  test(`should refuse ${what} with one line naming the flag`, async () => {
    await assert.rejects(parse([`--kubeconfig=${kubeconfig}`, ...args]), (e) => (e instanceof CliUsageError || e instanceof CommanderError) && message.test(e.message) && !e.message.includes('\n'));
  });
}
