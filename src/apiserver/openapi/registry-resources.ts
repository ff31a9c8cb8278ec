// The served resources as the OpenAPI builders see them: every version of every built-in kind,
// established CRD and create-only review resource, with the schema the server holds for it.

import { builtinSchema } from '../registry/builtin-schemas.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import type { JSONSchemaProps } from '../registry/schema/types.js';
import type { ServedResource, VirtualResource } from '../registry/types.js';
import type { OpenApiResource } from './types.js';

function fromServed(r: ServedResource): OpenApiResource[] {
  const d = r.def;
  return d.versions.map((version) => ({
    group: d.group, version, resource: d.resource, kind: d.kind, listKind: d.listKind,
    namespaced: d.namespaced, verbs: d.verbs, custom: r.custom,
    schema: (r.custom ? r.schemas?.[version] : r.pruningSchemas?.[version]) as JSONSchemaProps | undefined,
    subresources: r.subresources.map((s) => ({
      name: s.name, verbs: s.verbs,
      ...(s.kind ? { kind: s.kind, schema: builtinSchema(s.kind.group, s.kind.version, s.kind.kind) } : {}),
    })),
  }));
}

function fromVirtual(v: VirtualResource): OpenApiResource[] {
  const d = v.def;
  return d.versions.map((version) => ({
    group: d.group, version, resource: d.resource, kind: d.kind, listKind: d.listKind,
    namespaced: d.namespaced, verbs: ['create'], custom: false, subresources: [],
    schema: builtinSchema(d.group, version, d.kind),
  }));
}

export function openApiResources(registry: ResourceRegistry): OpenApiResource[] {
  return [...registry.all().flatMap(fromServed), ...registry.virtuals().flatMap(fromVirtual)];
}
