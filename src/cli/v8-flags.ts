// V8 flags chosen by subcommand. main.ts imports this module before any other, so the flags hold
// before commander, the subcommand's modules and the ESM loader's own hot paths run (V8 optimizes
// some of those within the first ~100 ms: flags set later leave the compiler's pages resident).
//
// The registration agent runs for weeks and idles between a few requests a minute, so V8's
// optimizing (TurboFan) and baseline (Sparkplug) tiers buy it no measurable speed, while the
// compiler's code pages and the compiled code cost it ~6 MiB of RSS (bench/agent.ts: 60.8 → 54.5
// MiB). Its JavaScript runs unchanged on the interpreter. Bytecode of functions that have not run
// since the previous full garbage collection is dropped at the next one (V8 waits for five by
// default): most of what the agent compiled ran once at start-up, and recompiling a function that
// runs again costs microseconds once in minutes.

import { setFlagsFromString } from 'node:v8';
import { rewriteRegistrationArgs } from './registration-aliases.js';

/** Subcommands that run on V8's interpreter only. */
const INTERPRETER_ONLY: ReadonlySet<string> = new Set(['agent']);

function subcommandOf(argv: readonly string[]): string | undefined {
  try {
    return rewriteRegistrationArgs(argv)[0];
  } catch {
    return undefined; // main() reports the usage error
  }
}

const sub = subcommandOf(process.argv.slice(2));
if (sub !== undefined && INTERPRETER_ONLY.has(sub)) {
  setFlagsFromString('--no-opt');
  setFlagsFromString('--no-sparkplug');
  setFlagsFromString('--bytecode-old-age=1');
}
