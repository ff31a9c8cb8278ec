import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { parseYaml } from '../../../util/yaml.js';
import { renderHubGrpcConfig } from './hub-config-template.js';

test('should render the hub config as OCM writes it: CA inline, certificate and key as files of the hub kubeconfig dir', () => {
  const text = renderHubGrpcConfig({ url: 'hub.example:8090', caData: Buffer.from('PEM'), keepAliveConfig: { enable: true, time: '20s' } }, '/spoke/hub-kubeconfig').toString();
  assert.equal(
    text,
    [
      `caData: ${Buffer.from('PEM').toString('base64')}`,
      'clientCertFile: /spoke/hub-kubeconfig/tls.crt',
      'clientKeyFile: /spoke/hub-kubeconfig/tls.key',
      'url: hub.example:8090',
      'token: ""',
      'keepAliveConfig:',
      '  enable: true',
      '  time: 20s',
      '',
    ].join('\n'),
  );
  assert.deepEqual(parseYaml(renderHubGrpcConfig({ url: 'h:1' }, '/d').toString()), { clientCertFile: '/d/tls.crt', clientKeyFile: '/d/tls.key', url: 'h:1', token: '' });
});

test('a relative hub kubeconfig dir is written as absolute paths (the config file is read from inside that dir)', () => {
  const doc = parseYaml(renderHubGrpcConfig({ url: 'h:1' }, './hub-kubeconfig').toString()) as { clientCertFile: string; clientKeyFile: string };
  assert.equal(doc.clientCertFile, resolve('hub-kubeconfig', 'tls.crt'));
  assert.equal(doc.clientKeyFile, resolve('hub-kubeconfig', 'tls.key'));
});
