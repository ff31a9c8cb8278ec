import type { Command } from 'commander';

// Placeholder until the apiserver component lands; replaced by its owner.
export function registerApiserverCommand(program: Command): void {
  program.command('apiserver').description('(apiserver: not yet available)').action(() => {
    throw new Error('apiserver is not available in this build yet');
  });
}
