// Run size and seed of the fuzz suite, from the environment (see the comment at the top of
// http-fuzz.test.ts). The defaults keep `npm test` quick and deterministic.

export interface FuzzOptions {
  /** Base number of generated requests per property (each property scales it by its own weight). */
  runs: number;
  /** fast-check seed: the same seed replays the same requests. */
  seed: number;
  /** Keep going after a failure and print every distinct one at the end (long campaigns). */
  collect: boolean;
}

const DEFAULT_RUNS = 150;
const DEFAULT_SEED = 20240909;

function positiveInt(v: string | undefined, name: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${v}"`);
  return n;
}

function integer(v: string | undefined, name: string): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new Error(`${name} must be an integer, got "${v}"`);
  return n;
}

export function fuzzOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): FuzzOptions {
  return {
    runs: positiveInt(env.OCM_TS_FUZZ_RUNS, 'OCM_TS_FUZZ_RUNS') ?? DEFAULT_RUNS,
    seed: integer(env.OCM_TS_FUZZ_SEED, 'OCM_TS_FUZZ_SEED') ?? DEFAULT_SEED,
    collect: env.OCM_TS_FUZZ_COLLECT === '1' || env.OCM_TS_FUZZ_COLLECT === 'true',
  };
}
