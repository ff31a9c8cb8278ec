import type { Command } from 'commander';

// Placeholder until the agent component lands; replaced by its owner.
export function registerAgentCommand(program: Command): void {
  program.command('agent').description('(agent: not yet available)').action(() => {
    throw new Error('agent is not available in this build yet');
  });
}
