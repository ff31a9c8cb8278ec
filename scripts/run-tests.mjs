#!/usr/bin/env node
// Runs every *.test.ts under src/ (unit) and test/ (integration, end to end) with node:test.
// Node 20's --test takes no globs, so the files are collected here. Arguments filter by substring.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

const files = ['src', 'test']
  .flatMap((d) => collect(join(root, d)))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)))
  .sort();

if (files.length === 0) {
  console.error('no test files matched');
  process.exit(1);
}

const res = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-concurrency=3', '--test-timeout=120000', ...files],
  { cwd: root, stdio: 'inherit' },
);
process.exit(res.status ?? 1);
