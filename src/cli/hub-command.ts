import type { Command } from 'commander';

// Placeholder until the hub component lands; replaced by its owner.
export function registerHubCommand(program: Command): void {
  program.command('hub').description('(hub: not yet available)').action(() => {
    throw new Error('hub is not available in this build yet');
  });
}
