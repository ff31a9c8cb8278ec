// The agent's bundle (dist/cli/agent-bundle/, built by scripts/build-agent-bundle.mjs): what makes it
// smaller than the modules it is built from must hold, and `ocm-ts agent` must run it.

import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { runCliToEnd } from './cli-helpers.js';

const DIR = fileURLToPath(new URL('../../dist/cli/agent-bundle/', import.meta.url));
const ENTRY = 'agent-fast-path.js';

function files(): string[] {
  assert.ok(existsSync(join(DIR, ENTRY)), `${DIR}${ENTRY} is missing: run \`npm run build\` first (npm test does)`);
  return readdirSync(DIR).filter((f) => f.endsWith('.js'));
}

/** The specifiers a minified ES module imports statically (`import ... from "x"` and `import "x"`). */
function staticImports(source: string): string[] {
  return [...source.matchAll(/(?:^|[;}\s])import\s*(?:[^'"();]*?from\s*)?["']([^"']+)["']/g)].map((m) => m[1]!);
}

test('the bundle imports Node built-ins through require, except node:module', () => {
  for (const f of files()) {
    const builtins = staticImports(readFileSync(join(DIR, f), 'utf8')).filter((s) => s.startsWith('node:') && s !== 'node:module');
    assert.deepEqual(builtins, [], `${f} imports ${builtins.join(', ')} as ES modules`);
  }
});

test('the bundle is ASCII only (V8 stores a source with one other character at two bytes per character)', () => {
  for (const f of files()) {
    const text = readFileSync(join(DIR, f), 'utf8');
    const i = [...text].findIndex((c) => c.charCodeAt(0) > 0x7f);
    assert.equal(i, -1, `${f} has a non-ASCII character at ${i}`);
  }
});

test('what the agent loads at start leaves the metrics library and the gRPC driver on demand', () => {
  files();
  const seen = new Set<string>();
  const libraries = new Set<string>();
  const visit = (f: string): void => {
    if (seen.has(f)) return;
    seen.add(f);
    for (const spec of staticImports(readFileSync(join(DIR, f), 'utf8'))) {
      if (spec.startsWith('./')) visit(spec.slice(2));
      else if (!spec.startsWith('.') && !spec.startsWith('node:')) libraries.add(spec);
    }
  };
  visit(ENTRY);
  assert.ok(seen.size > 1, 'the entry imports its chunks');
  assert.deepEqual([...libraries], [], 'libraries imported at start');
  assert.ok(![...seen].some((f) => /grpc|cloudevents|agent-metrics/.test(f)), `loaded at start: ${[...seen].join(', ')}`);
});

test('ocm-ts agent runs the bundle: a usage error thrown inside it exits 2 with one line', async () => {
  // The fast path parses these flags; agent-run (inside the bundle) refuses the feature gate with the
  // CLI's usage error, which main.ts must recognize across the bundle's boundary.
  const r = await runCliToEnd(['agent', '--cluster-name', 'c1', '--bootstrap-kubeconfig', '/nonexistent', '--feature-gates', 'NoSuchGate=true'], 30_000);
  assert.equal(r.code, 2, `exit code ${r.code}: ${r.stderr}`);
  assert.match(r.stderr, /^error: invalid argument "NoSuchGate=true" for "--feature-gates" flag/m);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
});
