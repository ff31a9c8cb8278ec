import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { SpokeAgentOptions } from '../agent/options/agent-options.js';
import { buildAgentCommand, normalizeFlagNames } from './agent-command.js';

async function parse(args: string[]): Promise<SpokeAgentOptions> {
  let got: SpokeAgentOptions | undefined;
  const cmd = buildAgentCommand(async (o) => {
    got = o;
  });
  cmd.exitOverride();
  cmd.configureOutput({ writeErr: () => {} });
  await cmd.parseAsync(args, { from: 'user' });
  assert.ok(got);
  return got;
}

test('should apply OCM defaults', async () => {
  const o = await parse(['--namespace', 'open-cluster-management-agent']);
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
  assert.equal(o.namespace, 'ns');
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
