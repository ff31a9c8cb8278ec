// Build step of the agent (after tsc): bundles dist/cli/agent-fast-path.js and every module the
// agent loads into a few minified files in dist/cli/agent-bundle/, which `ocm-ts agent` runs. A
// module's source stays in V8's heap for the process's life, as does its module record: the agent
// runs for weeks, so a few small files instead of ~130 is memory it keeps (bench/agent.ts measures
// it). What the agent imports on demand (the metrics, the gRPC driver) stays on demand: code
// splitting puts it in chunks of its own, loaded only when imported, with the libraries they import.
// The runtime libraries other than js-yaml stay in node_modules (native addons, libraries loaded by
// require() on demand), and usage-error.js stays a separate module: main.ts tells a usage error
// (exit code 2) by its class, which must be the one the bundle throws.
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const BUNDLED_LIBRARIES = new Set(['js-yaml']);

/** Keeps the CLI's usage error a module of its own, imported from beside the bundle. */
const sharedUsageError = {
  name: 'shared-usage-error',
  setup(b) {
    b.onResolve({ filter: /(^|\/)usage-error\.js$/ }, () => ({ path: '../usage-error.js', external: true }));
  },
};

const OUT_DIR = 'dist/cli/agent-bundle';
rmSync(OUT_DIR, { recursive: true, force: true });
/**
 * Node's built-in modules through require(), not import. Importing one into an ES module builds an
 * ES facade of it, which reads every export once, getters included: `node:tls` then materializes its
 * ~150 root certificates as PEM strings (~300 KiB of heap the agent never uses: it trusts the CA of
 * its kubeconfigs) and `node:fs` loads `fs/promises` and what it needs (~190 KiB). A shim module per
 * built-in re-exports its plain values and the getters listed in GETTER_EXPORTS (each is read when
 * the shim runs); importing another getter fails the build ("No matching export"): list it there.
 */
const GETTER_EXPORTS = { 'node:util': ['parseArgs'] };
const builtinsByRequire = {
  name: 'builtins-by-require',
  setup(b) {
    const require = createRequire(import.meta.url);
    b.onResolve({ filter: /^node:/ }, (args) => (args.path === 'node:module' || args.namespace === 'builtin-shim' ? { path: args.path, external: true } : { path: args.path, namespace: 'builtin-shim' }));
    b.onLoad({ filter: /.*/, namespace: 'builtin-shim' }, (args) => {
      const names = Object.entries(Object.getOwnPropertyDescriptors(require(args.path)))
        .filter(([name, d]) => ('value' in d || GETTER_EXPORTS[args.path]?.includes(name)) && /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default')
        .map(([name]) => name);
      const lines = [
        "import { createRequire } from 'node:module';",
        `const m = createRequire(import.meta.url)(${JSON.stringify(args.path)});`,
        'export default m;',
        ...names.map((name) => `export const ${name} = m.${name};`),
      ];
      return { contents: lines.join('\n'), loader: 'js' };
    });
  },
};

await build({
  entryPoints: ['dist/cli/agent-fast-path.js'],
  outdir: OUT_DIR,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  minify: true,
  // ASCII only: one non-ASCII character would store the whole source at two bytes per character.
  charset: 'ascii',
  legalComments: 'eof',
  external: Object.keys(pkg.dependencies).filter((name) => !BUNDLED_LIBRARIES.has(name)),
  plugins: [sharedUsageError, builtinsByRequire],
  logLevel: 'warning',
});
