#!/usr/bin/env node
// Regenerates manifests/crds/ from a directory of upstream CRD YAML files: same groups, versions,
// kinds and schemas, with every `description` text dropped (we do not ship upstream prose).
// Usage: node scripts/strip-crd-descriptions.mjs <source-dir>
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CORE_SCHEMA, dump, load } from 'js-yaml';

const src = process.argv[2];
if (!src) {
  console.error('usage: strip-crd-descriptions.mjs <source-dir>');
  process.exit(2);
}
const out = new URL('../manifests/crds/', import.meta.url).pathname;
mkdirSync(out, { recursive: true });

function strip(node, parentKey) {
  if (Array.isArray(node)) return node.map((n) => strip(n, undefined));
  if (node && typeof node === 'object') {
    const res = {};
    for (const [k, v] of Object.entries(node)) {
      // `description` is prose in schemas; inside `properties` it could be a field named "description".
      if (k === 'description' && parentKey !== 'properties' && typeof v === 'string') continue;
      res[k] = strip(v, k);
    }
    return res;
  }
  return node;
}

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p);
    else if (name.endsWith('.yaml')) {
      const doc = load(readFileSync(p, 'utf8'), { schema: CORE_SCHEMA });
      if (doc?.kind !== 'CustomResourceDefinition') continue;
      delete doc.metadata?.annotations;
      delete doc.status;
      const file = join(out, `${doc.metadata.name}.yaml`);
      writeFileSync(file, dump(strip(doc, undefined), { noRefs: true, lineWidth: -1, quotingType: '"' }));
      console.log(file);
    }
  }
}
walk(src);
