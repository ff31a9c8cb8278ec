import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nullLogger } from '../../util/logger.js';
import { selectBootstrapKubeconfig, serverUrlOfKubeconfig } from './bootstrap-selection.js';

test('selectBootstrapKubeconfig table', async (t) => {
  const cases: {
    name: string;
    hub?: string; // hub server URL; undefined = no hub kubeconfig file
    servers: Record<string, string | undefined | Error>;
    valid: string[];
    expected: string | Error;
    checked: string[];
  }[] = [
    { name: 'no hub kubeconfig: first valid', servers: { b1: 'https://h1', b2: 'https://h2' }, valid: ['b2'], expected: 'b2', checked: ['b1', 'b2'] },
    { name: 'prefer the current hub', hub: 'https://h2', servers: { b1: 'https://h1', b2: 'https://h2' }, valid: ['b1', 'b2'], expected: 'b2', checked: ['b2'] },
    {
      name: 'current hub invalid: pass 2 from the start',
      hub: 'https://h2',
      servers: { b1: 'https://h1', b2: 'https://h2', b3: 'https://h2' },
      valid: ['b3'],
      expected: 'b3',
      checked: ['b2', 'b1', 'b2', 'b3'],
    },
    { name: 'unreadable candidate skipped in pass 1', hub: 'https://h2', servers: { b1: new Error('bad yaml'), b2: 'https://h2' }, valid: ['b2'], expected: 'b2', checked: ['b2'] },
    {
      name: 'none valid',
      servers: { b1: 'https://h1', b2: 'https://h2' },
      valid: [],
      expected: new Error('no bootstrap kubeconfig in [b1 b2] is available for managed cluster c1'),
      checked: ['b1', 'b2'],
    },
  ];
  for (const c of cases) {
    await t.test(c.name, async () => {
      const checked: string[] = [];
      const run = selectBootstrapKubeconfig(
        {
          candidates: Object.keys(c.servers),
          hubKubeconfigPath: 'hub',
          clusterName: 'c1',
          serverUrlOf: (p) => {
            const v = p === 'hub' ? c.hub : c.servers[p];
            if (v instanceof Error) throw v;
            return v;
          },
          checkValid: async (p) => {
            checked.push(p);
            if (!c.valid.includes(p)) throw new Error('invalid');
          },
          log: nullLogger(),
        },
        new AbortController().signal,
      );
      if (c.expected instanceof Error) await assert.rejects(run, { message: c.expected.message });
      else assert.equal(await run, c.expected);
      assert.deepEqual(checked, c.checked);
    });
  }
});

test('serverUrlOfKubeconfig', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ocm-ts-hubs-'));
  const p = join(dir, 'kubeconfig');
  writeFileSync(
    p,
    'apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts:\n- name: c\n  context: {cluster: hub, user: u}\nclusters:\n- name: hub\n  cluster: {server: "https://hub:6443"}\nusers:\n- name: u\n  user: {}\n',
  );
  assert.equal(serverUrlOfKubeconfig(p), 'https://hub:6443');
  assert.equal(serverUrlOfKubeconfig(join(dir, 'missing')), undefined);
  writeFileSync(p, 'current-context: nope\n');
  assert.throws(() => serverUrlOfKubeconfig(p));
});
