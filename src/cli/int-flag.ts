// Integer flag values: digits only (no sign, exponent or fraction), within a safe integer.

import { CliUsageError } from './usage-error.js';

/** `v` as an integer of at least `min` (0 or 1), or a usage error naming the flag. */
export function parseIntFlag(flag: string, v: string, min: 0 | 1): number {
  const n = Number(v);
  if (!/^[0-9]+$/.test(v) || !Number.isSafeInteger(n) || n < min) {
    throw new CliUsageError(`${flag} must be a ${min === 1 ? 'positive' : 'non-negative'} integer, got "${v}"`);
  }
  return n;
}
