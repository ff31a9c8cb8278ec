// Small value generators shared by the path, query, header and body generators: odd strings,
// integers as text, booleans as text, names valid and not.

import fc from 'fast-check';

const LOWER = 'abcdefghijklmnopqrstuvwxyz0123456789';

/** A DNS-1123 label (valid object name for most kinds). */
export const dnsLabel: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz'), fc.string({ unit: fc.constantFrom(...`${LOWER}-`), maxLength: 12 }))
  .map(([a, b]) => `${a}${b.replace(/-+$/, '')}`);

/** Strings that stress parsers and validators: empty, whitespace, control and non-ASCII characters, long. */
export const oddString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('', ' ', 'a', 'A_B', '-a-', 'a..b', '.', '..', '/', 'a/b', '%', '%zz', '\u0000', '\t\n', '\u00e9', '\u202e', '\ud800', '\uffff', '😀', 'null', 'true', '0', '-1', '1e309', '{}', '[]', '"', '\\', '${x}', '*', 'a=b', 'a,b', 'system:masters', '__proto__', 'constructor') },
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
  { weight: 1, arbitrary: fc.integer({ min: 64, max: 5000 }).map((n) => 'x'.repeat(n)) },
);

/** An integer as text, valid or not: what query parameters such as limit and timeoutSeconds receive. */
export const intText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -5, max: 600 }).map(String) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('', '0', '-1', '1', '2', '500', '2147483648', '9007199254740993', '99999999999999999999', '1e3', '1.5', '0x10', ' 1', '+1', '-0', 'NaN', 'Infinity', 'abc', '1,2'),
  },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String) },
);

/** A boolean as text (Go strconv.ParseBool accepts some of these). */
export const boolText: fc.Arbitrary<string> = fc.constantFrom('', 'true', 'false', '1', '0', 't', 'F', 'TRUE', 'True', 'yes', 'on', '2', 'tru');

/** Object names: the seed names, valid new names, and invalid ones. */
export function nameArb(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...known) },
    { weight: 3, arbitrary: dnsLabel },
    { weight: 1, arbitrary: fc.constantFrom('UPPER', 'under_score', 'a:b', 'a.b.c', 'a..b', '-a', 'a-', '.', '..', 'x'.repeat(254), 'x'.repeat(64), 'é', 'a%2Fb', 'a%00b', '%2e%2e') },
  );
}
