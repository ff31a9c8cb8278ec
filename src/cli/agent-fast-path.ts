// `ocm-ts agent` without commander: the flags parsed by Node's util.parseArgs and the agent run. The
// build also bundles this module, with everything the agent loads, into a few minified files
// (dist/cli/agent-bundle/, by scripts/build-agent-bundle.mjs) that main.ts prefers: a few modules
// instead of ~130, with smaller source strings and Node's built-ins required rather than imported,
// keep ~1.9 MiB less in the agent's memory for its life (bench/agent.ts: 51.3 -> 49.4 MiB RSS).

import { parseAgentFlags } from './agent-flag-parser.js';

/**
 * Runs the agent and returns true when the commander-free parser accepts `args`; false leaves them
 * to commander, which reports what is wrong with them (or prints help).
 */
export async function runAgentWithoutCommander(args: readonly string[]): Promise<boolean> {
  const raw = parseAgentFlags(args);
  if (raw === undefined) return false;
  const { runAgentFromFlags } = await import('./agent-run.js');
  await runAgentFromFlags(raw);
  return true;
}
