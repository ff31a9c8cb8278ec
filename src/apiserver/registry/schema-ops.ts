// Adapter from the structural-schema module (registry/schema/) to the SchemaOps the custom-resource
// registry uses.

import type { KubeObject } from '../../api/meta.js';
import { applyDefaults, needsDefaults, pruneObject, validateSchema, type JSONSchemaProps } from './schema/index.js';
import { createPatternCache } from './schema/patterns.js';
import type { SchemaOps } from './custom-resource.js';

export function schemaOps(): SchemaOps {
  // Each served schema's patterns are compiled once, not on every write.
  const patterns = createPatternCache();
  return {
    prune: (obj: KubeObject, schema) => pruneObject(schema as JSONSchemaProps, obj),
    applyDefaults: (obj: KubeObject, schema) => {
      applyDefaults(schema as JSONSchemaProps, obj);
    },
    needsDefaults: (obj: KubeObject, schema) => needsDefaults(schema as JSONSchemaProps, obj),
    validate: (obj: KubeObject, schema) => validateSchema(schema as JSONSchemaProps, obj, { patterns }),
  };
}
