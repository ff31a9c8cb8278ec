import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGcResourceList, parseLabelsFlag, resolveHubOptions } from './options.js';

test("parseLabelsFlag: OCM's parse rules and error texts", () => {
  assert.deepEqual(parseLabelsFlag(''), {});
  assert.deepEqual(parseLabelsFlag('a=b,c=d'), { a: 'b', c: 'd' });
  assert.deepEqual(parseLabelsFlag('a='), { a: '' });
  assert.throws(() => parseLabelsFlag('a=b=c'), /^HubOptionsError: unexpected label spec: a=b=c$|unexpected label spec: a=b=c/);
  assert.throws(() => parseLabelsFlag('a'), /unexpected label spec: a/);
  assert.throws(() => parseLabelsFlag('=b'), /unexpected empty label key/);
});

test('parseGcResourceList: entries without exactly 3 parts are skipped', () => {
  const r = parseGcResourceList(['addon.open-cluster-management.io/v1beta1/managedclusteraddons', 'bad/entry', 'work.open-cluster-management.io/v1/manifestworks']);
  assert.deepEqual(r.resources.map((x) => x.resource), ['managedclusteraddons', 'manifestworks']);
  assert.deepEqual(r.invalid, ['bad/entry']);
});

test('resolveHubOptions: defaults, gates, --auto-approved-csr-users replaces the deprecated flag', () => {
  const d = resolveHubOptions().options;
  assert.equal(d.featureGates['DefaultClusterSet'], true);
  assert.equal(d.featureGates['ManagedClusterAutoApproval'], false);
  assert.equal(d.timings.cleanupRequeueMs, 5000);
  assert.equal(d.gcResources.length, 2);
  assert.deepEqual(resolveHubOptions({ clusterAutoApprovalUsers: ['old'] }).options.autoApprovedCsrUsers, ['old']);
  assert.deepEqual(resolveHubOptions({ clusterAutoApprovalUsers: ['old'], autoApprovedCsrUsers: ['new'] }).options.autoApprovedCsrUsers, ['new']);
  assert.equal(resolveHubOptions({ featureGates: ['ManagedClusterAutoApproval=true'] }).options.featureGates['ManagedClusterAutoApproval'], true);
  assert.throws(() => resolveHubOptions({ featureGates: ['Nope=true'] }), /unrecognized feature gate: Nope/);
  assert.ok(Object.isFrozen(d));
});

test('resolveHubOptions: csr and grpc drivers; awsirsa is refused and grpc needs its CA, naming the flag', () => {
  assert.deepEqual(resolveHubOptions().options.registrationDrivers, ['csr']);
  assert.deepEqual(resolveHubOptions({ enabledRegistrationDrivers: ['csr'] }).options.registrationDrivers, ['csr']);
  assert.throws(() => resolveHubOptions({ enabledRegistrationDrivers: ['csr', 'awsirsa'] }), /^HubOptionsError: --enabled-registration-drivers: awsirsa needs AWS/);
  assert.throws(() => resolveHubOptions({ enabledRegistrationDrivers: ['grpc'] }), /^HubOptionsError: --enabled-registration-drivers=grpc needs --grpc-ca-file and --grpc-key-file/);
  const g = resolveHubOptions({
    enabledRegistrationDrivers: ['csr', 'grpc'],
    unimplementedDriverFlags: { grpcCaFile: 'ca.crt', grpcKeyFile: 'ca.key', autoApprovedGrpcUsers: ['system:bootstrap:abc'] },
    grpcServer: { listen: ':9090' },
  });
  assert.deepEqual(g.options.registrationDrivers, ['csr', 'grpc']);
  assert.deepEqual(g.warnings, []);
  assert.equal(g.options.grpc?.caFile, 'ca.crt');
  assert.deepEqual(g.options.grpc?.autoApprovedUsers, ['system:bootstrap:abc']);
  assert.equal(g.options.grpc?.signingDurationMs, 720 * 3600_000);
  assert.deepEqual(g.options.grpc?.server, { listen: ':9090', heartbeatIntervalMs: 10_000, heartbeatDisabled: false });
  // unknown drivers are skipped as OCM skips them, with a warning
  const r = resolveHubOptions({ enabledRegistrationDrivers: ['csr', 'kerberos'] });
  assert.deepEqual(r.options.registrationDrivers, ['csr']);
  assert.match(r.warnings.join('\n'), /unknown driver "kerberos" ignored/);
  // the other drivers' flags are accepted and reported as unused
  const w = resolveHubOptions({ unimplementedDriverFlags: { hubClusterArn: 'arn:aws:eks:us-west-2:1:cluster/hub', autoApprovedGrpcUsers: ['u'] } }).warnings.join('\n');
  assert.match(w, /--hub-cluster-arn ignored/);
  assert.match(w, /--auto-approved-grpc-users ignored/);
});

test('resolveHubOptions: ClusterImporter is accepted, with the importer settings validated and defaulted as OCM', () => {
  const on = resolveHubOptions({ featureGates: ['ClusterImporter=true'], importer: { renderers: ['render-auto'], agentImage: 'reg/ocm-ts:1' } });
  assert.equal(on.options.featureGates['ClusterImporter'], true);
  assert.deepEqual(on.options.importer.renderers, ['render-auto']);
  assert.equal(on.options.importer.agentImage, 'reg/ocm-ts:1');
  assert.deepEqual(on.warnings, []);
  const d = resolveHubOptions().options.importer;
  assert.deepEqual(d.renderers, ['render-from-config-secret']);
  assert.deepEqual(d.bootstrapServiceAccount, { namespace: 'open-cluster-management', name: 'agent-registration-bootstrap' });
  assert.equal(d.imagePullSecretName, 'open-cluster-management-image-pull-credentials');
  assert.throws(() => resolveHubOptions({ featureGates: ['ClusterImporter=true'], importer: { renderers: ['render-magic'] } }), /^HubOptionsError: --import-renderers: unknown importer renderer render-magic/);
  // with the gate off the settings do nothing, and a warning says so
  assert.match(resolveHubOptions({ importer: { agentImage: 'x' } }).warnings.join('\n'), /--agent-image ignored: the ClusterImporter feature gate is off/);
});
