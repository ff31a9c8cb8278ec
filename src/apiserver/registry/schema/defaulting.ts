// Structural defaulting: `default` values are set where a property is absent inside
// an existing object (nested objects and array items included); a `null` in a non-nullable property
// takes the default, or is dropped when the property has no default and is not required (as
// kube-apiserver's PruneNonNullableNullsWithoutDefaults does). Junctors (anyOf/allOf/oneOf/not) are
// not descended. Mutates and returns `value`.
//
// `needsDefaults` is the same walk without writing: a stored object read back in its own version
// almost never lacks a default, and knowing that spares the read a deep copy.

import { isPlainObject } from '../../../util/merge-patch.js';
import type { JSONSchemaProps } from './types.js';

export function applyDefaults(schema: JSONSchemaProps, value: unknown): unknown {
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((item, i) => { value[i] = applyDefaults(schema.items as JSONSchemaProps, item); });
    return value;
  }
  if (!isPlainObject(value)) return value;
  const required = schema.required;
  for (const [k, prop] of propertiesOf(schema)) {
    const has = Object.prototype.hasOwnProperty.call(value, k);
    if ((!has || value[k] === null) && prop.default !== undefined && !(has && prop.nullable)) {
      value[k] = structuredClone(prop.default);
    } else if (has && value[k] === null && !prop.nullable && !(required ?? []).includes(k)) {
      delete value[k];
    }
  }
  for (const k in value) {
    const prop = memberSchema(schema, k);
    if (prop) value[k] = applyDefaults(prop, value[k]);
  }
  return value;
}

/** True when applyDefaults would change `value` (a default to set or a null to drop). Never mutates. */
export function needsDefaults(schema: JSONSchemaProps, value: unknown): boolean {
  if (Array.isArray(value)) {
    const items = schema.items as JSONSchemaProps | undefined;
    return items !== undefined && value.some((item) => needsDefaults(items, item));
  }
  if (!isPlainObject(value)) return false;
  const required = schema.required;
  for (const [k, prop] of propertiesOf(schema)) {
    const has = Object.prototype.hasOwnProperty.call(value, k);
    if ((!has || value[k] === null) && prop.default !== undefined && !(has && prop.nullable)) return true;
    if (has && value[k] === null && !prop.nullable && !(required ?? []).includes(k)) return true;
  }
  for (const k in value) {
    const prop = memberSchema(schema, k);
    if (prop && needsDefaults(prop, value[k])) return true;
  }
  return false;
}

// These walks run on every read and watch event of a custom resource: the schema's property list is
// made once per schema object, and objects are walked with for...in (plain JSON objects have only
// their own enumerable keys), rather than allocating a key/value array per object visited.
const propertyLists = new WeakMap<JSONSchemaProps, Array<[string, JSONSchemaProps]>>();

function propertiesOf(schema: JSONSchemaProps): Array<[string, JSONSchemaProps]> {
  let list = propertyLists.get(schema);
  if (list === undefined) {
    list = Object.entries(schema.properties ?? {});
    propertyLists.set(schema, list);
  }
  return list;
}

function memberSchema(schema: JSONSchemaProps, key: string): JSONSchemaProps | undefined {
  const own = schema.properties !== undefined && Object.prototype.hasOwnProperty.call(schema.properties, key) ? schema.properties[key] : undefined;
  return own ?? (typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined);
}
