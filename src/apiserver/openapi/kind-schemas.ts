// The definition of a kind and of its list kind, from the kind's schema. Like kube-apiserver for
// custom resources, apiVersion, kind and metadata are replaced by the standard fields, whatever the
// source schema says about them, so every kind's metadata is the full ObjectMeta.

import { ref, refField } from './meta-schemas.js';
import { definitionName, metaName } from './names.js';
import type { GroupVersionKind, OpenApiResource, Schema } from './types.js';

const API_VERSION: Schema = {
  type: 'string',
  description: 'The versioned schema of this representation of the object (group/version). The server converts recognised values and may reject others.',
};

const KIND: Schema = {
  type: 'string',
  description: 'The REST type of the object, in CamelCase. Inferred from the endpoint when a client omits it; cannot be updated.',
};

export function gvkOf(r: OpenApiResource, kind = r.kind): GroupVersionKind {
  return { group: r.group, version: r.version, kind };
}

/** Definition name of the resource's kind. */
export function kindName(r: OpenApiResource): string {
  return definitionName(gvkOf(r), r.custom);
}

/** Definition name of the resource's list kind. */
export function listKindName(r: OpenApiResource): string {
  return definitionName(gvkOf(r, r.listKind), r.custom);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The kind's definition: its schema with the standard top-level fields and the GVK extension. */
export function kindSchema(r: OpenApiResource): Schema {
  const source: Schema = r.schema ?? { 'x-kubernetes-preserve-unknown-fields': true };
  const properties = isRecord(source.properties) ? source.properties : {};
  return {
    ...source,
    type: 'object',
    properties: {
      ...properties,
      apiVersion: API_VERSION,
      kind: KIND,
      metadata: refField(metaName('ObjectMeta'), "Standard object metadata: name, namespace, labels, annotations and the server's bookkeeping.", { default: {} }),
    },
    'x-kubernetes-group-version-kind': [gvkOf(r)],
  };
}

/** The list kind's definition: `items` of the kind plus ListMeta. */
export function listSchema(r: OpenApiResource): Schema {
  return {
    type: 'object',
    description: `${r.listKind} is a list of ${r.kind} objects.`,
    required: ['items'],
    properties: {
      apiVersion: API_VERSION,
      items: { type: 'array', description: `The ${r.kind} objects.`, items: ref(kindName(r)) },
      kind: KIND,
      metadata: refField(metaName('ListMeta'), 'Standard list metadata: the resourceVersion the list was read at and the continue token.', { default: {} }),
    },
    'x-kubernetes-group-version-kind': [gvkOf(r, r.listKind)],
  };
}
