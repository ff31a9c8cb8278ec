import { test } from 'node:test';
import assert from 'node:assert/strict';
import { keyMatcher, keyRange } from './key-range.js';

const cases: { name: string; prefix: string; inside: string[]; outside: string[] }[] = [
  {
    name: 'resource prefix covers all namespaces',
    prefix: '/core/secrets/',
    inside: ['/core/secrets/ns1/a', '/core/secrets//cluster-scoped', '/core/secrets/ns2/b/c'],
    outside: ['/core/secrets', '/core/secretsx/ns1/a', '/core/serviceaccounts/ns1/a', '/core/secret/ns/a', '/core/secrets0/a'],
  },
  {
    name: 'namespace prefix covers one namespace',
    prefix: '/core/secrets/ns1/',
    inside: ['/core/secrets/ns1/a', '/core/secrets/ns1/zzz'],
    outside: ['/core/secrets/ns10/a', '/core/secrets/ns2/a', '/core/secrets/ns1'],
  },
  {
    name: 'a full key addresses one object',
    prefix: '/core/secrets/ns1/a',
    inside: ['/core/secrets/ns1/a'],
    outside: ['/core/secrets/ns1/ab', '/core/secrets/ns1/', '/core/secrets/ns1/a/b'],
  },
  {
    name: 'empty prefix covers everything',
    prefix: '',
    inside: ['/core/secrets/ns1/a', '/cluster.open-cluster-management.io/managedclusters//c1'],
    outside: [],
  },
];

for (const c of cases) {
  test(`should agree between range and matcher: ${c.name}`, () => {
    const { lo, hi } = keyRange(c.prefix);
    const match = keyMatcher(c.prefix);
    for (const k of c.inside) {
      assert.ok(match(k), `matcher should accept ${k}`);
      assert.ok(k >= lo && k < hi, `range should contain ${k}`);
    }
    for (const k of c.outside) {
      assert.ok(!match(k), `matcher should reject ${k}`);
      assert.ok(!(k >= lo && k < hi), `range should exclude ${k}`);
    }
  });
}
