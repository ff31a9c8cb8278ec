// `npm run bench -- <name>...`: runs the named benchmarks (all when none is named) and prints figures.
// Each benchmark reports medians of several runs and ratios to a baseline measured in the same run.
const benches: Record<string, () => Promise<unknown>> = {
  apiserver: async () => (await import('./apiserver.js')).benchApiserver(),
  agent: async () => (await import('./agent.js')).benchAgent(),
  hub: async () => (await import('./hub.js')).benchHub(),
  join: async () => (await import('./join.js')).benchJoin(),
  fleet: async () => (await import('./fleet.js')).benchFleet(),
};

async function main(): Promise<void> {
  const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const unknown = names.filter((n) => !(n in benches));
  if (unknown.length > 0) {
    process.stderr.write(`unknown benchmark: ${unknown.join(', ')} (have: ${Object.keys(benches).join(', ')})\n`);
    process.exit(2);
  }
  for (const name of names.length > 0 ? names : Object.keys(benches)) {
    process.stdout.write(`\n=== bench ${name} ===\n`);
    await benches[name]!();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  },
);
