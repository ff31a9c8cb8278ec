// Types of the registry: what a served resource is (built-in kind or CRD version), the per-resource
// strategy hooks (CSR rules plug in here) and create-only virtual resources (access reviews).

import type { KubeObject } from '../../api/meta.js';
import type { FieldError } from '../http/errors.js';
import type { Authorizer, ResourceDef, UserInfo } from '../pipeline.js';
import type { Store } from '../storage/types.js';
import type { JSONSchemaProps } from './schema/types.js';

export interface StrategyContext {
  user: UserInfo;
  /** '' for the main resource, or 'status', 'approval', 'finalize', ... */
  subresource: string;
  /** API version the client wrote in (custom resources validate against that version's schema). */
  version?: string;
  /** Milliseconds since the epoch (from the server's clock). */
  now: number;
  store: Store;
  /** How unknown fields are treated (custom resources): Ignore, Warn (default) or Strict (400). */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /** Warning texts for the response's `Warning` headers. */
  warnings?: string[];
}

/**
 * Per-resource hooks run by the registry after the generic metadata rules. `prepareForCreate` and
 * `prepareForUpdate` may edit `obj` in place (reset status, inject identity, copy fields from `old`);
 * `validate` returns field errors (→ 422) or throws an ApiError for anything else.
 */
export interface ResourceStrategy {
  prepareForCreate?(obj: KubeObject, ctx: StrategyContext): void;
  prepareForUpdate?(obj: KubeObject, old: KubeObject, ctx: StrategyContext): void;
  validate?(obj: KubeObject, old: KubeObject | undefined, ctx: StrategyContext): FieldError[];
}

/** How a subresource write combines the submitted object with the stored one. */
type SubresourceMode =
  /** new = stored with `status` replaced (the /status of most kinds). */
  | 'status'
  /** The strategy's prepareForUpdate decides everything (CSR /approval, Namespace /finalize). */
  | 'strategy'
  /** A create-only virtual subresource answered by `create` (serviceaccounts/token). */
  | 'create';

interface SubresourceCreateContext {
  namespace: string;
  /** Name of the parent object. */
  name: string;
  user: UserInfo;
}

export interface SubresourceDef {
  name: string;
  mode: SubresourceMode;
  /** HTTP-level verbs allowed (get, update, patch, create). */
  verbs: string[];
  /** For mode 'create': answers the POST (201); the body is checked against `kind` below. */
  create?(body: KubeObject, ctx: SubresourceCreateContext): KubeObject;
  /** Discovery type of the subresource when it differs from the parent's. */
  kind?: { group: string; version: string; kind: string };
}

/** Printer column of a Table (CRD additionalPrinterColumns shape). */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

/** A served resource; built-ins and CRDs are both described this way. */
export interface ServedResource {
  def: ResourceDef;
  /** Storage group/resource (events.k8s.io events share core storage). */
  storageGroup: string;
  storageResource: string;
  /** Main-resource writes ignore `status` (kept from storage / dropped on create). */
  hasStatus: boolean;
  /** metadata.generation maintained (1 on create, +1 on spec changes). */
  tracksGeneration: boolean;
  nameRule: 'subdomain' | 'label' | 'path';
  custom: boolean;
  subresources: SubresourceDef[];
  strategy: ResourceStrategy;
  /** Printer columns by version (CRDs). */
  printerColumns?: Record<string, PrinterColumn[]>;
  /** openAPIV3Schema by version (CRDs). */
  schemas?: Record<string, Record<string, unknown>>;
  /** Convert a stored object to the requested version's wire form (defaults to apiVersion rewrite). */
  toVersion?(obj: KubeObject, version: string): KubeObject;
  /** Convert an incoming object of `version` to storage form (defaults to apiVersion rewrite). */
  fromVersion?(obj: KubeObject, version: string): KubeObject;
  /** Whether the `kubernetes.io/strategic-merge-patch` content type is accepted. */
  strategicMergePatch: boolean;
  /**
   * Built-in kinds: structural schema by served version. Unknown fields of incoming objects are
   * pruned with it and reported as `fieldValidation` asks (custom resources prune in their strategy).
   */
  pruningSchemas?: Record<string, JSONSchemaProps>;
  /** Largest stored object, in bytes of JSON (default: the server-wide limit). */
  maxObjectBytes?: number;
}

interface VirtualResourceContext {
  user: UserInfo;
  namespace: string;
  authorizer: Authorizer;
  store: Store;
}

/** A create-only resource that is never stored (SubjectAccessReview, TokenRequest, ...). */
export interface VirtualResource {
  def: ResourceDef;
  /** Returns the response object (usually the request with `status` filled); answered with 201. */
  create(obj: KubeObject, ctx: VirtualResourceContext): KubeObject | Promise<KubeObject>;
}
