import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderKubeconfig } from './kubeconfig-writer.js';

test('should render the hub kubeconfig layout byte for byte', () => {
  const caData = Buffer.from('-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n').toString('base64');
  const got = renderKubeconfig({
    clusterName: 'hub',
    server: 'https://127.0.0.1:6443',
    certificateAuthorityData: caData,
    user: { clientCertificate: 'tls.crt', clientKey: 'tls.key' },
  });
  const want = [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${caData}`,
    '    server: https://127.0.0.1:6443',
    '  name: hub',
    'contexts:',
    '- context:',
    '    cluster: hub',
    '    namespace: configuration',
    '    user: default-auth',
    '  name: default-context',
    'current-context: default-context',
    'kind: Config',
    'users:',
    '- name: default-auth',
    '  user:',
    '    client-certificate: tls.crt',
    '    client-key: tls.key',
    '',
  ].join('\n');
  assert.equal(got, want);
});

test('should be deterministic and normalise CA data, token and exec users (table)', () => {
  const base = { clusterName: 'c', server: 'https://h:1' };
  const cases = [
    { name: 'token file', input: { ...base, user: { tokenFile: 'token' } }, contains: ['  user:\n    tokenFile: token\n'] },
    { name: 'CA path and proxy', input: { ...base, certificateAuthority: '/etc/ca.crt', proxyUrl: 'http://proxy:3128', user: { tokenFile: 't' } }, contains: ['    certificate-authority: /etc/ca.crt\n    proxy-url: http://proxy:3128\n    server: https://h:1\n'] },
    { name: 'CA data with line breaks is normalised', input: { ...base, certificateAuthorityData: 'QUJD\nREVG', user: { tokenFile: 't' } }, contains: ['certificate-authority-data: QUJDREVG\n'] },
    {
      name: 'exec',
      input: { ...base, user: { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1', command: '/awscli/dist/aws', args: ['--region', 'us-east-1'] } } },
      // A string starting with "-" is quoted (Go writes it plain); both read back as the same string.
      contains: ['    exec:\n      apiVersion: client.authentication.k8s.io/v1beta1\n      args:\n      - "--region"\n      - us-east-1\n      command: /awscli/dist/aws\n'],
    },
  ];
  for (const c of cases) {
    const a = renderKubeconfig(c.input);
    assert.equal(a, renderKubeconfig(c.input), `${c.name}: deterministic`);
    for (const s of c.contains) assert.ok(a.includes(s), `${c.name}: expected ${JSON.stringify(s)} in\n${a}`);
  }
});
