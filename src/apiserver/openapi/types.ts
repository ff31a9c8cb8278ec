// What the OpenAPI builders read and produce. The builders are pure: a list of resources (with the
// schema of each kind) goes in, Swagger 2.0 or OpenAPI 3.0 documents come out.

import type { JSONSchemaProps } from '../registry/schema/types.js';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

interface OpenApiSubresource {
  name: string;
  /** HTTP-level verbs: get, update, patch, create. */
  verbs: string[];
  /** Type of the subresource when it is not the parent's kind (serviceaccounts/token). */
  kind?: GroupVersionKind;
  /** Schema of that kind, when known. */
  schema?: JSONSchemaProps;
}

/** One served resource in one version, as the documents describe it. */
export interface OpenApiResource {
  group: string;
  version: string;
  resource: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  /** Kubernetes verbs: get, list, watch, create, update, patch, delete, deletecollection. */
  verbs: string[];
  subresources: OpenApiSubresource[];
  /** Schema of the kind: a CRD version's openAPIV3Schema or a built-in kind's structural schema. */
  schema: JSONSchemaProps | undefined;
  /** Backed by a CRD: named by reversed group, and patched without strategic merge patch. */
  custom: boolean;
}

/** The document-wide `info` block. */
export interface OpenApiInfo {
  title: string;
  version: string;
}

/** A schema in OpenAPI 3 form; `$ref`s point into `#/components/schemas/`. */
export type Schema = Record<string, unknown>;
