import type { Command } from 'commander';

// Placeholder until the get component lands; replaced by its owner.
export function registerGetCommand(program: Command): void {
  program.command('get').description('(get: not yet available)').action(() => {
    throw new Error('get is not available in this build yet');
  });
}
