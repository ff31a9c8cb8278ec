// `ocm-ts agent`: the registration agent, as a commander command built from the flag table of
// ./agent-flags.ts. main.ts starts the agent without commander when ./agent-flag-parser.ts accepts
// the arguments; this command parses everything else: --help, and every mistake, reported as one
// line with exit 2 (bad flags, and OCM flags ocm-ts does not implement). OCM's validation
// failures: OCM's message, exit 1. SIGINT/SIGTERM stop the agent cleanly (exit 0), and so does a
// change of a `--terminate-on-files` file.

import { Command, InvalidArgumentError, Option } from 'commander';
import type { SpokeAgentOptions } from '../agent/options/agent-options.js';
import type { LogLevel } from '../util/logger.js';
import { agentFlags, FlagValueError, normalizeFlagNames, unsupportedFlagMessage, valueParser, type AgentFlag, type RawFlags } from './agent-flags.js';
import { agentSettingsFromFlags, runAgentInForeground } from './agent-run.js';
import { CliUsageError } from './usage-error.js';

class AgentCommand extends Command {
  override parseOptions(argv: string[]): ReturnType<Command['parseOptions']> {
    const normalized = normalizeFlagNames(argv);
    const unsupported = unsupportedFlagMessage(normalized);
    if (unsupported !== undefined) throw new CliUsageError(unsupported);
    return super.parseOptions(normalized);
  }
}

function commanderOption(flag: AgentFlag): Option {
  const option = new Option(flag.spec, flag.description);
  if (flag.default !== undefined) option.default(flag.default, flag.defaultText);
  const parse = valueParser(flag);
  if (parse !== undefined) {
    // commander reports its own error class as "option '...' argument '...' is invalid. <message>".
    option.argParser((value: string, previous: unknown) => {
      try {
        return parse(value, previous);
      } catch (err) {
        if (err instanceof FlagValueError) throw new InvalidArgumentError(err.message);
        throw err;
      }
    });
  }
  if (flag.hidden === true) option.hideHelp();
  return option;
}

/** The `agent` command handing its parsed flags to `onFlags` (exported for tests). */
export function buildAgentFlagsCommand(onFlags: (raw: RawFlags) => Promise<void>): Command {
  const cmd = new AgentCommand('agent').description('Run the klusterlet registration agent: join a hub, keep the hub credentials rotated, report cluster status');
  for (const flag of agentFlags()) cmd.addOption(commanderOption(flag));
  return cmd.action(async (raw: RawFlags) => onFlags(raw));
}

/** Builds the `agent` command (exported for tests: parse with `.parseAsync(args, { from: 'user' })`). */
export function buildAgentCommand(run: (opts: SpokeAgentOptions, logLevel: LogLevel) => Promise<void>): Command {
  return buildAgentFlagsCommand(async (raw) => {
    const { options, level } = agentSettingsFromFlags(raw);
    await run(options, level);
  });
}

export function registerAgentCommand(program: Command): void {
  const cmd = buildAgentCommand((opts, level) => runAgentInForeground(opts, level));
  // addCommand() does not inherit exitOverride/output settings the way command() does.
  cmd.copyInheritedSettings(program);
  program.addCommand(cmd);
}
