import type { Command } from 'commander';

// Placeholder until the accept component lands; replaced by its owner.
export function registerAcceptCommand(program: Command): void {
  program.command('accept').description('(accept: not yet available)').action(() => {
    throw new Error('accept is not available in this build yet');
  });
}
