// The agent's flags parsed without commander, for the agent's start: commander's sources would stay
// in the long-running agent's heap for its whole life to parse a few flags once. This parser
// accepts only well-formed argument lists and, for those, returns exactly what commander's parse
// of the same table gives (./agent-flag-parser.test.ts checks that on generated argument lists).
// Anything else (a mistake, --help, an argument it is not sure of) is left to commander, which
// prints the usage message.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { agentFlags, flagKey, flagName, normalizeFlagNames, takesValue, unsupportedFlagMessage, valueParser, type RawFlags } from './agent-flags.js';

/**
 * The agent's flags, or undefined when commander must parse `args` instead: an unknown, malformed
 * or unsupported flag, a bad value, a positional argument, `--`, or a request for help.
 */
export function parseAgentFlags(args: readonly string[]): RawFlags | undefined {
  const normalized = normalizeFlagNames(args);
  if (normalized.some((a) => a === '--' || a === '-h' || a === '--help')) return undefined;
  if (unsupportedFlagMessage(normalized) !== undefined) return undefined;
  const flags = agentFlags();
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const flag of flags) options[flagName(flag).slice(2)] = { type: takesValue(flag) ? 'string' : 'boolean', multiple: true };
  let values: ReturnType<typeof parseArgs>['values'];
  try {
    // strict: an unknown flag, a switch given a value, a flag missing its value or one whose value
    // looks like a flag (`--kubeconfig --listen`) throws, where commander's reading may differ.
    ({ values } = parseArgs({ args: [...normalized], options, strict: true, allowPositionals: false }));
  } catch {
    return undefined;
  }
  const raw: Record<string, unknown> = {};
  for (const flag of flags) {
    const key = flagKey(flag);
    let value: unknown = flag.default;
    if (value !== undefined) raw[key] = value;
    const given = values[flagName(flag).slice(2)];
    if (!Array.isArray(given) || given.length === 0) continue;
    // As commander does: each occurrence goes through the parser with the value so far, starting
    // from the default; a flag without a parser keeps its last occurrence.
    const parse = valueParser(flag);
    for (const occurrence of given) {
      if (parse === undefined) {
        value = occurrence;
        continue;
      }
      if (typeof occurrence !== 'string') return undefined;
      try {
        value = parse(occurrence, value);
      } catch {
        return undefined;
      }
    }
    raw[key] = value;
  }
  // Every field comes from the table RawFlags mirrors; the test compares the whole object with commander's.
  return raw as unknown as RawFlags;
}
