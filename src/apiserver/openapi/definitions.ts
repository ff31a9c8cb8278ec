// Every definition a set of resources needs: the shared meta types, each kind, each list kind and
// the kinds of subresources typed differently from their parent. Keys sorted, so the documents and
// their hashes do not depend on registration order.

import { kindName, kindSchema, listKindName, listSchema } from './kind-schemas.js';
import { metaSchemas } from './meta-schemas.js';
import type { OpenApiResource, Schema } from './types.js';

export function definitionsOf(resources: readonly OpenApiResource[]): Record<string, Schema> {
  const defs: Record<string, Schema> = metaSchemas();
  for (const r of resources) {
    defs[kindName(r)] = kindSchema(r);
    if (r.verbs.includes('list')) defs[listKindName(r)] = listSchema(r);
    for (const s of r.subresources) {
      if (!s.kind) continue;
      const other: OpenApiResource = { ...r, ...s.kind, schema: s.schema, custom: false };
      defs[kindName(other)] = kindSchema(other);
    }
  }
  return Object.fromEntries(Object.entries(defs).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
