// The page's script: ./web/main.tsx (Preact) bundled by esbuild into one file. `npm run build`
// writes it beside the compiled server (dist/dashboard/web/app.js); when the server runs from the
// sources (tests, tsx) and finds no bundle, it builds one in memory the same way.

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

export interface BundleOptions {
  /** The front-end's entry point (main.tsx). */
  entry: string;
  /** Write here; omitted = return the code only. */
  outFile?: string;
}

export async function buildBundle(o: BundleOptions): Promise<string> {
  // A build tool, loaded only where the bundle is built (installs that carry dist/ never need it).
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [o.entry],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2020',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    write: o.outFile !== undefined,
    ...(o.outFile !== undefined ? { outfile: o.outFile } : {}),
    logLevel: 'silent',
  });
  if (o.outFile !== undefined) return readFile(o.outFile, 'utf8');
  return result.outputFiles?.[0]?.text ?? '';
}

export interface DashboardAssets {
  js: string;
  css: string;
}

/** The bundle and stylesheet next to this module: built ones, else built now from the sources. */
export async function loadAssets(): Promise<DashboardAssets> {
  const dir = new URL('./web/', import.meta.url);
  const css = await readFile(new URL('styles.css', dir), 'utf8');
  try {
    return { js: await readFile(new URL('app.js', dir), 'utf8'), css };
  } catch {
    return { js: await buildBundle({ entry: fileURLToPath(new URL('main.tsx', dir)) }), css };
  }
}
