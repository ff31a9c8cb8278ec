// Resources for the OpenAPI builder tests.

import type { OpenApiResource } from './types.js';

const FULL = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** A namespaced custom resource with a status subresource; `over` changes any part. */
export function widgetResource(over: Partial<OpenApiResource> = {}): OpenApiResource {
  return {
    group: 'example.com', version: 'v1', resource: 'widgets', kind: 'Widget', listKind: 'WidgetList',
    namespaced: true, verbs: FULL, custom: true,
    subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
    schema: {
      type: 'object', description: 'A widget.',
      properties: {
        metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 5 } } },
        spec: { type: 'object', nullable: true, properties: { size: { type: 'integer', default: 3 } }, required: ['size'] },
      },
    },
    ...over,
  };
}

/** Every `$ref` in a document, wherever it is. */
export function refsOf(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) refsOf(n, out);
  else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refsOf(v, out);
    }
  }
  return out;
}
