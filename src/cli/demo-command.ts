import type { Command } from 'commander';

// Placeholder until the demo component lands; replaced by its owner.
export function registerDemoCommand(program: Command): void {
  program.command('demo').description('(demo: not yet available)').action(() => {
    throw new Error('demo is not available in this build yet');
  });
}
