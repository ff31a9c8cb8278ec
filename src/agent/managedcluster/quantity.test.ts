import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addQuantities, formatQuantity, parseQuantity, sumResourceLists } from './quantity.js';

test('canonical formatting of parsed quantities', () => {
  const cases: { name: string; input: string; expected: string }[] = [
    { name: 'plain integer', input: '32', expected: '32' },
    { name: 'binary megabytes', input: '64Mi', expected: '64Mi' },
    { name: 'binary promoted to larger suffix', input: '1024Mi', expected: '1Gi' },
    { name: 'binary not divisible stays', input: '1536Ki', expected: '1536Ki' },
    { name: 'small binary value is decimal', input: '0.5Ki', expected: '512' },
    { name: 'millicores', input: '1500m', expected: '1500m' },
    { name: 'millicores collapse', input: '2000m', expected: '2' },
    { name: 'fraction', input: '1.5', expected: '1500m' },
    { name: 'kilo', input: '128000', expected: '128k' },
    { name: 'exponent', input: '1e3', expected: '1e3' },
    { name: 'zero', input: '0', expected: '0' },
    { name: 'negative', input: '-2k', expected: '-2k' },
    { name: 'sub-nano rounds up', input: '0.0000000001', expected: '1n' },
  ];
  for (const c of cases) assert.equal(formatQuantity(parseQuantity(c.input)), c.expected, c.name);
});

test('invalid quantities are rejected', () => {
  for (const bad of ['', 'abc', '1.2.3', '5Zi', '.']) assert.throws(() => parseQuantity(bad), bad);
});

test('addition keeps the first non-zero format', () => {
  assert.equal(formatQuantity(addQuantities(parseQuantity('64Mi'), parseQuantity('64Mi'))), '128Mi');
  assert.equal(formatQuantity(addQuantities(parseQuantity('0'), parseQuantity('64Mi'))), '64Mi');
  assert.equal(formatQuantity(addQuantities(parseQuantity('500m'), parseQuantity('1'))), '1500m');
});

test('sumResourceLists sums every resource name', () => {
  const invalid: string[] = [];
  const out = sumResourceLists(
    [
      { cpu: '32', memory: '64Mi', pods: '110', 'hugepages-2Mi': '0' },
      { cpu: '32', memory: '64Mi', pods: '110', 'example.com/gpu': '2', bad: 'x' },
      undefined,
    ],
    (n) => invalid.push(n),
  );
  assert.deepEqual(out, { 'example.com/gpu': '2', cpu: '64', 'hugepages-2Mi': '0', memory: '128Mi', pods: '220' });
  assert.deepEqual(invalid, ['bad']);
});
