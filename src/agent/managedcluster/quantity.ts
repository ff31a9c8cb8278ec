// Kubernetes resource quantities (resource.Quantity) reduced to what the resource reconciler needs:
// parse, add exactly, and print in the canonical form kube-apiserver would use for the sum.
// Values are held as an exact count of nano-units (BigInt); sub-nano fractions round up, as upstream.

type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** value × 10^9, exact. */
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

const NANO = 1_000_000_000n;

const binarySuffixes: Record<string, bigint> = {
  Ki: 1024n,
  Mi: 1024n ** 2n,
  Gi: 1024n ** 3n,
  Ti: 1024n ** 4n,
  Pi: 1024n ** 5n,
  Ei: 1024n ** 6n,
};

/** Decimal SI suffix → power of ten. */
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

const QUANTITY_RE = /^([+-]?)(\d*)(?:\.(\d*))?(Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?\d+|[numkMGTPE])?$/;

class QuantityParseError extends Error {
  constructor(text: string) {
    super(`quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': ${JSON.stringify(text)}`);
    this.name = 'QuantityParseError';
  }
}

function ceilDiv(a: bigint, b: bigint): bigint {
  // b > 0; round toward +infinity
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}

export function parseQuantity(text: string): Quantity {
  const m = QUANTITY_RE.exec(text.trim());
  if (!m) throw new QuantityParseError(text);
  const [, sign = '', intPart = '', fracPart = '', suffix = ''] = m;
  if (intPart === '' && fracPart === '') throw new QuantityParseError(text);
  const digits = BigInt((intPart || '0') + fracPart);
  const fracScale = 10n ** BigInt(fracPart.length);
  let nanos: bigint;
  let format: QuantityFormat;
  if (suffix in binarySuffixes) {
    format = 'BinarySI';
    nanos = ceilDiv(digits * binarySuffixes[suffix]! * NANO, fracScale);
  } else {
    let exp: number;
    if (suffix.startsWith('e') || suffix.startsWith('E')) {
      format = 'DecimalExponent';
      exp = Number(suffix.slice(1));
    } else {
      format = 'DecimalSI';
      exp = decimalSuffixes[suffix]!;
    }
    const e = exp + 9; // to nanos
    nanos = e >= 0 ? ceilDiv(digits * 10n ** BigInt(e), fracScale) : ceilDiv(digits, fracScale * 10n ** BigInt(-e));
  }
  return { nanos: sign === '-' ? -nanos : nanos, format };
}

/** Exact sum; the format is the first non-zero operand's (as Quantity.Add keeps it). */
export function addQuantities(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

const decimalByExp: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const binaryNames = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** Canonical string: BinarySI uses the largest exact binary suffix (decimal below 1024 or for fractions). */
export function formatQuantity(q: Quantity): string {
  const neg = q.nanos < 0n;
  const abs = neg ? -q.nanos : q.nanos;
  const sign = neg ? '-' : '';
  if (abs === 0n) return '0';
  if (q.format === 'BinarySI' && abs % NANO === 0n && abs / NANO >= 1024n) {
    let v = abs / NANO;
    let i = 0;
    while (i < binaryNames.length - 1 && v % 1024n === 0n) {
      v /= 1024n;
      i++;
    }
    return `${sign}${v}${binaryNames[i]}`;
  }
  // Decimal: strip trailing zeros in groups of three, starting from nano.
  let mantissa = abs;
  let exp = -9;
  while (mantissa % 1000n === 0n && exp < 18) {
    mantissa /= 1000n;
    exp += 3;
  }
  if (q.format === 'DecimalExponent') return `${sign}${mantissa}${exp === 0 ? '' : `e${exp}`}`;
  return `${sign}${mantissa}${decimalByExp[exp]}`;
}

/**
 * Sums resource maps (name → quantity string) key by key. Unparsable values are skipped and
 * reported through `onInvalid`.
 */
export function sumResourceLists(lists: readonly (Record<string, string> | undefined)[], onInvalid?: (name: string, value: string) => void): Record<string, string> {
  const sums = new Map<string, Quantity>();
  for (const list of lists) {
    for (const [name, value] of Object.entries(list ?? {})) {
      let q: Quantity;
      try {
        q = parseQuantity(value);
      } catch {
        onInvalid?.(name, value);
        continue;
      }
      const prev = sums.get(name);
      sums.set(name, prev ? addQuantities(prev, q) : q);
    }
  }
  const out: Record<string, string> = {};
  for (const name of [...sums.keys()].sort()) out[name] = formatQuantity(sums.get(name)!);
  return out;
}
