import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDuration } from './duration-flag.js';

const cases: { name: string; input: string; expected: number | undefined }[] = [
  { name: 'seconds', input: '90s', expected: 90_000 },
  { name: 'bare number is seconds', input: '20', expected: 20_000 },
  { name: 'compound', input: '1h30m', expected: 5_400_000 },
  { name: 'millis', input: '500ms', expected: 500 },
  { name: 'hours', input: '8760h', expected: 8760 * 3_600_000 },
  { name: 'garbage', input: 'soon', expected: undefined },
  { name: 'trailing garbage', input: '5mx', expected: undefined },
  { name: 'empty', input: '', expected: undefined },
];
for (const c of cases) test(`parseDuration: ${c.name}`, () => assert.equal(parseDuration(c.input), c.expected));
