#!/usr/bin/env node
// ocm-ts: one binary, one subcommand per component. Each subcommand lives in its own module that
// parses flags into an options object, validates it, and calls the component's run().
import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { registerApiserverCommand } from './apiserver-command.js';
import { registerHubCommand } from './hub-command.js';
import { registerHubTokenCommand } from './hub-token-command.js';
import { registerAgentCommand } from './agent-command.js';
import { registerAcceptCommand } from './accept-command.js';
import { registerJoinCommand } from './join-command.js';
import { DoctorUnhealthy, registerDoctorCommand } from './doctor-command.js';
import { registerGetCommand } from './get-command.js';
import { registerDemoCommand } from './demo-command.js';
import { registerWebhookCommand } from './webhook-command.js';
import { CliUsageError } from './usage-error.js';
import { rewriteRegistrationArgs } from './registration-aliases.js';
import { errorMessage } from '../util/errors.js';

export async function main(argv: string[]): Promise<number> {
  const program = new Command('ocm-ts')
    .description('Open Cluster Management cluster registration: hub, agent and an embedded Kubernetes API server')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError(false)
    // Options belong to the command they follow: `hub token --kubeconfig X` is token's, not hub's.
    .enablePositionalOptions();
  registerApiserverCommand(program);
  registerHubCommand(program);
  registerHubTokenCommand(program.commands.find((c) => c.name() === 'hub')!);
  registerAgentCommand(program);
  registerJoinCommand(program);
  registerAcceptCommand(program);
  registerGetCommand(program);
  registerDoctorCommand(program);
  registerDemoCommand(program);
  registerWebhookCommand(program);
  try {
    await program.parseAsync(rewriteRegistrationArgs(argv), { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version exit 0; usage mistakes exit 2 (commander already printed one line).
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return 0;
      return 2;
    }
    // The report already says what is wrong.
    if (err instanceof DoctorUnhealthy) return 1;
    if (err instanceof CliUsageError) {
      process.stderr.write(`error: ${err.message}\n`);
      return 2;
    }
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
