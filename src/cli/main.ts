#!/usr/bin/env node
// ocm-ts: one binary, one subcommand per component. Each subcommand lives in its own module that
// parses flags into an options object, validates it, and calls the component's run().
//
// Only the module of the subcommand being run is loaded: the agent is a long-running process whose
// memory should not pay for the hub, the API server or the certificate library it never uses. The
// agent does not even load commander when its flags parse without it (./agent-flag-parser.ts):
// commander's sources would stay in its heap for life; a mistake or --help still goes to commander.
// That path runs from the build's minified bundle of the agent (./agent-fast-path.ts), a few files
// instead of ~130 modules.

// First: V8 flags that must hold before anything else runs.
import './v8-flags.js';
import { createRequire } from 'node:module';
import type * as Fs from 'node:fs';
import type { Command, CommanderError } from 'commander';
import type * as AgentFastPath from './agent-fast-path.js';
import { CliUsageError } from './usage-error.js';
import { rewriteRegistrationArgs } from './registration-aliases.js';
import { errorMessage } from '../util/errors.js';

type Register = (program: Command) => void;

// node:fs through require(): importing it builds an ES facade that reads every export, which loads
// fs/promises and its dependencies into every process, the agent's included, for life.
const { statSync } = createRequire(import.meta.url)('node:fs') as typeof Fs;

/** Each subcommand's module, loaded on demand; in the order `--help` lists them. */
const SUBCOMMANDS: ReadonlyArray<readonly [name: string, load: () => Promise<Register>]> = [
  ['apiserver', async () => (await import('./apiserver-command.js')).registerApiserverCommand],
  [
    'hub',
    async () => {
      const [{ registerHubCommand }, { registerHubTokenCommand }] = await Promise.all([import('./hub-command.js'), import('./hub-token-command.js')]);
      return (program) => {
        registerHubCommand(program);
        registerHubTokenCommand(program.commands.find((c) => c.name() === 'hub')!);
      };
    },
  ],
  ['agent', async () => (await import('./agent-command.js')).registerAgentCommand],
  ['join', async () => (await import('./join-command.js')).registerJoinCommand],
  ['accept', async () => (await import('./accept-command.js')).registerAcceptCommand],
  ['get', async () => (await import('./get-command.js')).registerGetCommand],
  ['doctor', async () => (await import('./doctor-command.js')).registerDoctorCommand],
  ['demo', async () => (await import('./demo-command.js')).registerDemoCommand],
  ['fleet', async () => (await import('./fleet-command.js')).registerFleetCommand],
  ['fleet-worker', async () => (await import('./fleet-command.js')).registerFleetWorkerCommand],
  ['webhook', async () => (await import('./webhook-command.js')).registerWebhookCommand],
];

/**
 * The subcommands to register for `argv`: the one it names, or all of them when it names none
 * (`--help`, an unknown command), so help and commander's suggestions stay complete.
 */
function subcommandsFor(argv: readonly string[]): ReadonlyArray<readonly [string, () => Promise<Register>]> {
  const named = SUBCOMMANDS.find(([name]) => name === argv[0]);
  return named ? [named] : SUBCOMMANDS;
}

/**
 * The commander-free agent entry: the build's bundle of it when present and built after the module
 * itself (a later `tsc` alone leaves the bundle stale), else the module.
 */
async function loadAgentFastPath(): Promise<typeof AgentFastPath> {
  const bundle = new URL('./agent-bundle/agent-fast-path.js', import.meta.url);
  const source = new URL('./agent-fast-path.js', import.meta.url);
  try {
    if (statSync(bundle).mtimeMs >= statSync(source).mtimeMs) return (await import(bundle.href)) as typeof AgentFastPath;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return import('./agent-fast-path.js');
}

export async function main(argv: string[]): Promise<number> {
  // Set once commander is loaded: an error can be commander's only after that.
  let commanderError: typeof CommanderError | undefined;
  try {
    const args = rewriteRegistrationArgs(argv);
    // `agent` without commander when its flags parse without it; otherwise commander reports them.
    if (args[0] === 'agent' && (await (await loadAgentFastPath()).runAgentWithoutCommander(args.slice(1)))) return 0;
    const { Command, CommanderError } = await import('commander');
    commanderError = CommanderError;
    const program = new Command('ocm-ts')
      .description('Open Cluster Management cluster registration: hub, agent and an embedded Kubernetes API server')
      .exitOverride()
      .configureOutput({ writeErr: (s) => process.stderr.write(s) })
      .showHelpAfterError(false)
      // Options belong to the command they follow: `hub token --kubeconfig X` is token's, not hub's.
      .enablePositionalOptions();
    const registers = await Promise.all(subcommandsFor(args).map(([, load]) => load()));
    for (const register of registers) register(program);
    await program.parseAsync(args, { from: 'user' });
    return 0;
  } catch (err) {
    if (commanderError !== undefined && err instanceof commanderError) {
      // --help and --version exit 0; usage mistakes exit 2 (commander already printed one line).
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return 2;
    }
    if (err instanceof CliUsageError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 2;
    }
    // The doctor's report already says what is wrong.
    if (err instanceof Error && err.name === 'DoctorUnhealthy' && err instanceof (await import('./doctor-command.js')).DoctorUnhealthy) return 1;
    process.stderr.write(`error: ${errorMessage(err)}\n`);
    return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`error: ${errorMessage(err)}\n`);
    process.exitCode = 1;
  },
);
