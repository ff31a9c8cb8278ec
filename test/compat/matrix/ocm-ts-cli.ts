// The built `ocm-ts` command (dist/), as a user runs it.
import { existsSync } from 'node:fs';

const MAIN = new URL('../../../dist/cli/main.js', import.meta.url).pathname;

export function ocmTsCommand(args: string[]): { command: string; args: string[] } {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first`);
  return { command: process.execPath, args: [MAIN, ...args] };
}
