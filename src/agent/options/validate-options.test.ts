import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultAgentOptions, type SpokeAgentOptions } from './agent-options.js';
import { completeOptions, dns1123LabelErrors, isValidHttpsUrl, validateClusterName, validateRegistrationOptions, type NameSources } from './validate-options.js';

function opts(over: Partial<SpokeAgentOptions>): SpokeAgentOptions {
  return { ...defaultAgentOptions(), bootstrapKubeconfig: '/spoke/bootstrap/kubeconfig', ...over };
}

test('should validate registration options as OCM does', () => {
  const cases: { name: string; input: SpokeAgentOptions; expected: string | undefined }[] = [
    { name: 'invalid external server URLs', input: opts({ spokeExternalServerUrls: ['http://127.0.0.1:8080'] }), expected: '"http://127.0.0.1:8080" is invalid' },
    { name: 'empty external server URL', input: opts({ spokeExternalServerUrls: [''] }), expected: '"" is invalid' },
    { name: 'valid external server URL', input: opts({ spokeExternalServerUrls: ['https://127.0.0.1:6443'] }), expected: undefined },
    { name: 'invalid cluster healthcheck period', input: opts({ clusterHealthcheckPeriodMs: 0 }), expected: 'cluster healthcheck period must greater than zero' },
    { name: 'default completed options', input: opts({}), expected: undefined },
    { name: 'default completed options for aws flow', input: opts({ registrationAuth: 'awsirsa', hubClusterArn: 'arn:aws:eks:us-west-2:123456789012:cluster/hub-cluster1' }), expected: undefined },
    { name: 'default completed options without HubClusterArn for aws flow', input: opts({ registrationAuth: 'awsirsa' }), expected: 'EksHubClusterArn cannot be empty if RegistrationAuth is awsirsa' },
    { name: 'expiration 3599', input: opts({ clientCertExpirationSeconds: 3599 }), expected: 'client certificate expiration seconds must greater or qual to 3600' },
    { name: 'expiration 3600', input: opts({ clientCertExpirationSeconds: 3600 }), expected: undefined },
    { name: 'unknown auth falls back to csr validation', input: opts({ registrationAuth: 'unknown', clientCertExpirationSeconds: 1200 }), expected: 'client certificate expiration seconds must greater or qual to 3600' },
    { name: 'grpc validate', input: opts({ registrationAuth: 'grpc' }), expected: 'config file should be set' },
    { name: 'grpc validate pass', input: opts({ registrationAuth: 'grpc', grpcConfig: '/x' }), expected: undefined },
    { name: 'bad addon auth', input: opts({ addonKubeclientRegistrationAuth: 'foo' }), expected: 'unsupported addon-kubeclient-registration-auth: foo' },
    { name: 'empty addon auth', input: opts({ addonKubeclientRegistrationAuth: '' }), expected: undefined },
    {
      name: 'MultipleHubs enabled, but bootstrapkubeconfigs is empty',
      input: opts({ featureGates: { MultipleHubs: true } }),
      expected: 'expect at least 2 bootstrap kubeconfigs',
    },
    {
      name: 'MultipleHubs enabled with 2 bootstrapkubeconfigs',
      input: opts({ featureGates: { MultipleHubs: true }, bootstrapKubeconfigs: ['/a', '/b'] }),
      expected: undefined,
    },
  ];
  for (const c of cases) assert.equal(validateRegistrationOptions(c.input), c.expected, c.name);
});

test('should tell https URLs apart', () => {
  const cases = [
    { name: 'an empty url', input: '', expected: false },
    { name: 'an invalid url', input: '/path/path/path', expected: false },
    { name: 'a http url', input: 'http://127.0.0.1:8080', expected: false },
    { name: 'a https url', input: 'https://127.0.0.1:8080', expected: true },
  ];
  for (const c of cases) assert.equal(isValidHttpsUrl(c.input), c.expected, c.name);
});

function sources(over: Partial<NameSources> = {}): NameSources {
  return { clusterNameFile: undefined, agentNameFile: undefined, newUuid: () => 'generated-uuid', newAgentId: () => 'bcdfg', ...over };
}

test('should complete names and the hub kubeconfig path', () => {
  const base = { hubKubeconfig: '', hubKubeconfigDir: '/spoke/hub-kubeconfig' };
  const cases = [
    { name: 'generate random cluster/agent name', input: { ...base, clusterName: '', agentId: '' }, src: sources(), expected: { clusterName: 'generated-uuid', agentId: 'bcdfg' } },
    { name: 'specify cluster name', input: { ...base, clusterName: 'cluster1', agentId: '' }, src: sources(), expected: { clusterName: 'cluster1', agentId: 'bcdfg' } },
    {
      name: 'override cluster name in secret with specified value',
      input: { ...base, clusterName: 'cluster1', agentId: '' },
      src: sources({ clusterNameFile: 'cluster2', agentNameFile: 'agent2' }),
      expected: { clusterName: 'cluster1', agentId: 'agent2' },
    },
    {
      name: 'take cluster/agent name from secret',
      input: { ...base, clusterName: '', agentId: '' },
      src: sources({ clusterNameFile: 'cluster1', agentNameFile: 'agent1' }),
      expected: { clusterName: 'cluster1', agentId: 'agent1' },
    },
    {
      // OCM reads the files as they are: an empty file gives an empty name (then "cluster name is empty").
      name: 'empty files in the hub kubeconfig dir are taken as they are',
      input: { ...base, clusterName: '', agentId: '' },
      src: sources({ clusterNameFile: '', agentNameFile: '' }),
      expected: { clusterName: '', agentId: '' },
    },
    {
      name: 'both flags given: files ignored',
      input: { ...base, clusterName: 'c', agentId: 'a' },
      src: sources({ clusterNameFile: 'x', agentNameFile: 'y' }),
      expected: { clusterName: 'c', agentId: 'a' },
    },
  ];
  for (const c of cases) {
    const got = completeOptions(c.input, c.src);
    assert.deepEqual({ clusterName: got.clusterName, agentId: got.agentId }, c.expected, c.name);
    assert.equal(got.hubKubeconfig, '/spoke/hub-kubeconfig/kubeconfig', c.name);
  }
  assert.equal(completeOptions({ ...base, hubKubeconfig: '/x/k', clusterName: 'c', agentId: 'a' }, sources()).hubKubeconfig, '/x/k');
});

test('should validate cluster names with Kubernetes messages', () => {
  const regexMsg =
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
  const cases = [
    { name: 'empty cluster name', input: '', expected: 'cluster name is empty' },
    { name: 'invalid cluster name format', input: 'test.cluster', expected: 'metadata.name format is not correct: must not contain dots' },
    { name: 'invalid characters', input: 'test-cluster-!@#', expected: `metadata.name format is not correct: ${regexMsg}` },
    { name: 'too long', input: 'a'.repeat(64), expected: 'metadata.name format is not correct: must be no more than 63 characters' },
    { name: 'too long and bad', input: 'A'.repeat(64), expected: `metadata.name format is not correct: must be no more than 63 characters,${regexMsg}` },
    { name: 'valid passed', input: 'cluster-1', expected: undefined },
  ];
  for (const c of cases) assert.equal(validateClusterName(c.input), c.expected, c.name);
  assert.deepEqual(dns1123LabelErrors('ok'), []);
});
