import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SpokeAgentOptions } from '../agent/options/agent-options.js';
import { buildAgentCommand } from './agent-command.js';
import { normalizeFlagNames } from './agent-flags.js';
import { parseCommand } from '../../test/helpers/parse-command.js';

const parse = (args: string[]): Promise<SpokeAgentOptions> => parseCommand<SpokeAgentOptions>(buildAgentCommand, args);

test('should apply OCM defaults', async () => {
  const o = await parse(['--component-namespace', 'open-cluster-management-agent']);
  assert.equal(o.namespace, 'open-cluster-management-agent');
  // controllercmd's and the common options' defaults.
  assert.equal(o.listen, '0.0.0.0:8443');
  assert.deepEqual(o.serving.tls, { minVersion: 'TLSv1.2' });
  assert.equal(o.serving.metricsAuth, 'delegated');
  assert.deepEqual(
    { ...o.leaderElection },
    { disabled: false, namespace: '', name: 'registration-agent-lock', leaseDurationMs: 137_000, renewDeadlineMs: 107_000, retryPeriodMs: 26_000, releaseOnCancel: true },
  );
  assert.deepEqual([o.kubeApiQps, o.kubeApiBurst, o.hubKubeApiQps, o.hubKubeApiBurst], [50, 100, 50, 100]);
  assert.deepEqual(o.terminateOnFiles, []);
  assert.equal(o.timings.terminateOnFilesPollMs, 10_000);
  assert.equal(o.hubKubeconfigDir, '/spoke/hub-kubeconfig');
  assert.equal(o.hubKubeconfigSecret, 'hub-kubeconfig-secret');
  assert.equal(o.bootstrapKubeconfigSecret, 'bootstrap-hub-kubeconfig');
  assert.equal(o.clusterHealthcheckPeriodMs, 60_000);
  assert.equal(o.maxCustomClusterClaims, 20);
  assert.equal(o.hubConnectionTimeoutSeconds, 600);
  assert.equal(o.addonKubeclientRegistrationAuth, 'csr');
  assert.equal(o.featureGates.ClusterClaim, true);
  assert.equal(o.featureGates.MultipleHubs, false);
  // OCM hardcodes these for HubTimeoutController (1 min check period, 10 s startup grace).
  assert.equal(o.timings.hubTimeoutResyncMs, 60_000);
  assert.equal(o.timings.hubTimeoutStartupGraceMs, 10_000);
});

test('should parse every agent flag into the right field (TestAgentOptions_AddFlags)', async () => {
  const o = await parse([
    '--kubeconfig=/m',
    '--spoke-kubeconfig=/s',
    '--spoke_cluster_name=c1',
    '--agent-id=a1',
    '--hub-kubeconfig-dir=/d',
    '--hub-kubeconfig=/d/k',
    '--namespace=ns',
    '--bootstrap-kubeconfig=/b',
    '--bootstrap-kubeconfig-secret=bs',
    '--bootstrap-kubeconfigs=/b1',
    '--bootstrap-kubeconfigs=/b2',
    '--hub-connection-timeout-seconds=300',
    '--hub-kubeconfig-secret=hs',
    '--spoke-external-server-urls=https://a:1',
    '--spoke-external-server-urls=https://b:2',
    '--cluster-healthcheck-period=30s',
    '--max-custom-cluster-claims=5',
    '--reserved-cluster-claim-suffixes=x.io,y.io',
    '--cluster-annotations=agent.open-cluster-management.io/a=b,c=d',
    '--registration-auth=csr',
    '--addon-kubeclient-registration-auth=token',
    '--client-cert-expiration-seconds=7200',
    '--feature-gates=AddonManagement=false,ClusterProperty=true',
    '--listen=127.0.0.1:8443',
    '--exit-on-restart',
    '--bootstrap-poll-period=100ms',
    '--register-resync-period=2s',
    '--liveness-period=0',
    '--hub-timeout-resync-period=500ms',
    '--hub-timeout-startup-grace=1s',
  ]);
  assert.equal(o.kubeconfig, '/m');
  assert.equal(o.spokeKubeconfig, '/s');
  assert.equal(o.clusterName, 'c1');
  assert.equal(o.agentId, 'a1');
  assert.equal(o.hubKubeconfigDir, '/d');
  assert.equal(o.hubKubeconfig, '/d/k');
  assert.equal(o.leaderElection.namespace, 'ns');
  assert.equal(o.bootstrapKubeconfig, '/b');
  assert.equal(o.bootstrapKubeconfigSecret, 'bs');
  assert.deepEqual(o.bootstrapKubeconfigs, ['/b1', '/b2']);
  assert.equal(o.hubConnectionTimeoutSeconds, 300);
  assert.equal(o.hubKubeconfigSecret, 'hs');
  assert.deepEqual(o.spokeExternalServerUrls, ['https://a:1', 'https://b:2']);
  assert.equal(o.clusterHealthcheckPeriodMs, 30_000);
  assert.equal(o.maxCustomClusterClaims, 5);
  assert.deepEqual(o.reservedClusterClaimSuffixes, ['x.io', 'y.io']);
  assert.deepEqual(o.clusterAnnotations, { 'agent.open-cluster-management.io/a': 'b', c: 'd' });
  assert.equal(o.registrationAuth, 'csr');
  assert.equal(o.addonKubeclientRegistrationAuth, 'token');
  assert.equal(o.clientCertExpirationSeconds, 7200);
  assert.equal(o.featureGates.AddonManagement, false);
  assert.equal(o.featureGates.ClusterProperty, true);
  assert.equal(o.listen, '127.0.0.1:8443');
  assert.equal(o.exitOnRestart, true);
  assert.equal(o.timings.bootstrapPollMs, 100);
  assert.equal(o.timings.registerResyncMs, 2000);
  assert.equal(o.timings.livenessPeriodMs, 0);
  assert.equal(o.timings.hubTimeoutResyncMs, 500);
  assert.equal(o.timings.hubTimeoutStartupGraceMs, 1000);
});

test('should accept --cluster-name as an alias, the last one winning', async () => {
  assert.equal((await parse(['--cluster-name=x'])).clusterName, 'x');
  assert.equal((await parse(['--spoke-cluster-name=a', '--cluster-name=b'])).clusterName, 'b');
  assert.equal((await parse(['--cluster_name=b', '--spoke-cluster-name', 'a'])).clusterName, 'a');
});

test('should reject bad values', async () => {
  await assert.rejects(parse(['--max-custom-cluster-claims=many']), /strconv.ParseInt: parsing "many": invalid syntax/);
  await assert.rejects(parse(['--cluster-healthcheck-period=10']), /time: missing unit in duration "10"/);
  await assert.rejects(parse(['--feature-gates=Nope=true']), /unrecognized feature gate: Nope/);
  await assert.rejects(parse(['--unknown-flag']), /unknown option/);
});

test('should normalise only flag names', () => {
  assert.deepEqual(normalizeFlagNames(['--a_b=c_d', 'x_y', '--', '--e_f']), ['--a-b=c_d', 'x_y', '--', '--e_f']);
});

/**
 * The arguments the klusterlet operator's registration Deployment template renders (after the
 * image's "/registration agent"), in Default and Hosted modes, with and without the optional ones.
 */
const KLUSTERLET_ARGS: Record<string, string[]> = {
  'Default, minimal': ['--spoke-cluster-name=cluster1', '--bootstrap-kubeconfig=/spoke/bootstrap/kubeconfig'],
  'Default, every optional flag': [
    '--spoke-cluster-name=cluster1',
    '--bootstrap-kubeconfig=/spoke/bootstrap/kubeconfig',
    '--feature-gates=ClusterClaim=true',
    '--feature-gates=AddonManagement=true',
    '--spoke-external-server-urls=https://spoke.example.com:6443',
    '--client-cert-expiration-seconds=86400',
    '--cluster-annotations=agent.open-cluster-management.io/foo=bar',
    '--kube-api-qps=20.5',
    '--kube-api-burst=60',
    '--max-custom-cluster-claims=30',
    '--reserved-cluster-claim-suffixes=a.io,b.io',
    '--addon-kubeclient-registration-auth=token',
    '--addon-token-expiration-seconds=3600',
    '--tls-min-version=VersionTLS13',
    '--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256',
  ],
  'Default, MultipleHubs': [
    '--spoke-cluster-name=cluster1',
    '--bootstrap-kubeconfigs=/spoke/hub1/kubeconfig',
    '--bootstrap-kubeconfigs=/spoke/hub2/kubeconfig',
    '--hub-connection-timeout-seconds=600',
    '--feature-gates=MultipleHubs=true',
  ],
  'Hosted, minimal': [
    '--spoke-cluster-name=cluster1',
    '--bootstrap-kubeconfig=/spoke/bootstrap/kubeconfig',
    '--spoke-kubeconfig=/spoke/config/kubeconfig',
    '--terminate-on-files=/spoke/config/kubeconfig',
  ],
  'Hosted, awsirsa and TLS': [
    '--spoke-cluster-name=cluster1',
    '--bootstrap-kubeconfig=/spoke/bootstrap/kubeconfig',
    '--spoke-kubeconfig=/spoke/config/kubeconfig',
    '--terminate-on-files=/spoke/config/kubeconfig',
    '--registration-auth=awsirsa',
    '--hub-cluster-arn=arn:aws:eks:us-west-2:123456789012:cluster/hub',
    '--managed-cluster-arn=arn:aws:eks:us-west-2:123456789012:cluster/spoke',
    '--managed-cluster-role-suffix=abc',
    '--tls-min-version=VersionTLS12',
  ],
  'Default, grpc': [
    '--spoke-cluster-name=cluster1',
    '--bootstrap-kubeconfig=/spoke/bootstrap/kubeconfig',
    '--registration-auth=grpc',
    '--grpc-bootstrap-config=/spoke/bootstrap/config.yaml',
    '--grpc-config=/spoke/hub-kubeconfig/config.yaml',
  ],
};

test('should parse every argument list the klusterlet operator renders', async () => {
  for (const [mode, args] of Object.entries(KLUSTERLET_ARGS)) {
    const o = await parse(args);
    assert.equal(o.clusterName, 'cluster1', mode);
  }
  const full = await parse(KLUSTERLET_ARGS['Default, every optional flag']!);
  assert.equal(full.kubeApiQps, 20.5);
  assert.equal(full.kubeApiBurst, 60);
  assert.equal(full.serving.tls.minVersion, 'TLSv1.3');
  assert.match(full.serving.tls.ciphers ?? '', /ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256$/);
  const hosted = await parse(KLUSTERLET_ARGS['Hosted, minimal']!);
  assert.deepEqual(hosted.terminateOnFiles, ['/spoke/config/kubeconfig']);
  assert.equal(hosted.spokeKubeconfig, '/spoke/config/kubeconfig');
});

test('should parse controllercmd and common flags', async () => {
  const o = await parse([
    '--namespace=le-ns',
    '--component-namespace=agent-ns',
    '--disable-leader-election',
    '--leader-election-lease-duration=15s',
    '--leader-election-renew-deadline=10s',
    '--leader-election-retry-period=2s',
    '--hub-kube-api-qps=5',
    '--hub-kube-api-burst=7',
    '--terminate-on-files=/a',
    '--terminate-on-files=/b',
    '--listen=:9443',
    '--metrics-auth=none',
  ]);
  assert.equal(o.leaderElection.namespace, 'le-ns');
  assert.equal(o.namespace, 'agent-ns');
  assert.equal(o.leaderElection.disabled, true);
  assert.deepEqual([o.leaderElection.leaseDurationMs, o.leaderElection.renewDeadlineMs, o.leaderElection.retryPeriodMs], [15_000, 10_000, 2_000]);
  assert.deepEqual([o.hubKubeApiQps, o.hubKubeApiBurst], [5, 7]);
  assert.deepEqual(o.terminateOnFiles, ['/a', '/b']);
  assert.equal(o.listen, ':9443');
  assert.equal(o.serving.metricsAuth, 'none');
  assert.equal((await parse(['--listen='])).listen, '');
});

test('should refuse OCM flags ocm-ts does not implement, naming them, and bad values', async () => {
  await assert.rejects(parse(['--config=/tmp/c.yaml']), /flag --config of OCM's agent is not implemented by ocm-ts/);
  await assert.rejects(parse(['--v=4']), /flag --v of OCM's agent is not implemented/);
  await assert.rejects(parse(['-v', '2']), /flag -v of OCM's agent/);
  await assert.rejects(parse(['--log_dir=/x']), /flag --log-dir of OCM's agent/);
  await assert.rejects(parse(['--kube-api-qps=fast']), /strconv.ParseFloat: parsing "fast": invalid syntax/);
  await assert.rejects(parse(['--tls-min-version=VersionTLS11']), /invalid TLS flags: .*VersionTLS11/);
  await assert.rejects(parse(['--tls-cipher-suites=TLS_FAKE']), /invalid TLS flags: .*TLS_FAKE/);
  await assert.rejects(parse(['--leader-election-lease-duration=10s']), /leader election: leaseDuration must be greater than renewDeadline/);
  // Leader election timings are not checked when it is off.
  await parse(['--disable-leader-election', '--leader-election-lease-duration=10s']);
  await assert.rejects(parse(['--listen=nowhere']), /--listen: invalid listen address/);
  await assert.rejects(parse(['--metrics-auth=maybe']), /"--metrics-auth" flag/);
});
