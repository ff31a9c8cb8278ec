// Runs a CLI command's parser on arguments and returns the options it would act on: the commands
// build on a commander Command that calls back with validated options.
import assert from 'node:assert/strict';
import type { Command } from 'commander';

export async function parseCommand<T>(build: (run: (o: T) => Promise<void>) => Command, args: string[]): Promise<T> {
  let got: T | undefined;
  const cmd = build(async (o) => {
    got = o;
  });
  cmd.exitOverride();
  cmd.configureOutput({ writeErr: () => {} });
  await cmd.parseAsync(args, { from: 'user' });
  assert.ok(got);
  return got;
}
