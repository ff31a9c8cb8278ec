// The product as it ships. The benchmarks time the build in dist/ (what `ocm-ts`, `npm start` and a
// deployment run), not the sources through tsx, whose transform adds work the build does not have
// (esbuild's keepNames wraps every function a hot path creates in a naming call).
// The bench's own code stays TypeScript; the product's code it runs, in this process or in a child,
// comes from the build. `npm run bench` builds first; run any other way, a missing or stale build is
// an error, never a silent fallback to the sources.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository's root directory (with a trailing separator). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The CLI of the build: `node BUILT_MAIN hub ...`. */
export const BUILT_MAIN = join(ROOT, 'dist/cli/main.js');

/** Whether a .ts file under srcDir (tests aside) was changed after `built` was written. */
export function newerSourceThan(built: string, srcDir: string): boolean {
  if (!existsSync(built)) return false;
  const builtAt = statSync(built).mtimeMs;
  const walk = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return walk(p);
      return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && statSync(p).mtimeMs > builtAt;
    });
  return walk(srcDir);
}

let checked = false;

/** Throws unless dist/ holds a build at least as new as every source file. */
function assertBuilt(): void {
  if (checked) return;
  if (!existsSync(BUILT_MAIN)) throw new Error(`${BUILT_MAIN} does not exist: run npm run build (npm run bench builds first)`);
  if (newerSourceThan(BUILT_MAIN, join(ROOT, 'src'))) throw new Error('src/ has files newer than the build in dist/: run npm run build (npm run bench builds first)');
  checked = true;
}

/**
 * One module of the build, typed as its source: `fromBuild<typeof Embedded>('apiserver/embedded.js')`
 * with `import type * as Embedded from '../src/apiserver/embedded.js'`.
 */
export async function fromBuild<M>(modulePath: string): Promise<M> {
  assertBuilt();
  return (await import(pathToFileURL(join(ROOT, 'dist', modulePath)).href)) as M;
}
