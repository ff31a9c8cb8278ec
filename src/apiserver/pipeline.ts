// Contracts of the request pipeline: authenticate → authorize → route → admission → registry →
// storage. The HTTP layer owns the order; authentication, authorization, admission and the
// built-in controllers (namespace deleter, CSR signer, CRD establisher) plug in through these types.

import type { IncomingHttpHeaders } from 'node:http';
import type { KubeObject } from '../api/meta.js';
import type { Store } from './storage/types.js';
import type { Logger } from '../util/logger.js';

export interface UserInfo {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** What authentication sees of a request. */
export interface AuthenticationRequest {
  headers: IncomingHttpHeaders;
  /** DER of the client certificate chain's leaf, when the client sent one (verification is the authenticator's job). */
  clientCertificateDer?: Buffer;
}

export type AuthenticationResult =
  | { kind: 'user'; user: UserInfo }
  /** No credentials were presented: the anonymous user (system:anonymous, system:unauthenticated). */
  | { kind: 'anonymous'; user: UserInfo }
  /** Credentials were presented and are bad or expired: answer 401. */
  | { kind: 'unauthorized'; why: string };

export interface Authenticator {
  authenticate(req: AuthenticationRequest): AuthenticationResult;
}

/** authorizer.Attributes of kube-apiserver. */
export interface RequestAttributes {
  user: UserInfo;
  /** get, list, watch, create, update, patch, delete, deletecollection, or a custom verb (approve, renew, ...). */
  verb: string;
  resourceRequest: boolean;
  /** For non-resource requests, the URL path. */
  path: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

export type AuthorizationDecision = 'allow' | 'deny' | 'noOpinion';

export interface Authorizer {
  authorize(attrs: RequestAttributes): { decision: AuthorizationDecision; reason: string };
}

/** Describes one served resource (built-in kind or CRD version). */
export interface ResourceDef {
  group: string;
  /** Versions served; `storageVersion` is the one objects are stored in. */
  versions: string[];
  storageVersion: string;
  resource: string;
  kind: string;
  listKind: string;
  singular: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  /** e.g. ['status'], ['status', 'approval'] */
  subresources: string[];
  verbs: string[];
}

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

export interface AdmissionRequest {
  operation: AdmissionOperation;
  resource: ResourceDef;
  /** '' for the main resource, 'status', 'approval', ... */
  subresource: string;
  namespace: string;
  name: string;
  /** New object (CREATE/UPDATE); mutating plugins may change it in place. */
  object?: KubeObject;
  /** Stored object (UPDATE/DELETE). */
  oldObject?: KubeObject;
  user: UserInfo;
}

/** What plugins may use: read access to stored objects and the authorizer (for SAR-style checks). */
export interface AdmissionContext {
  store: Store;
  authorizer: Authorizer;
  log: Logger;
}

/**
 * A mutating and/or validating admission step. `mutate` runs before validation and may edit
 * `req.object` in place; `validate` throws an ApiError (usually 403 Forbidden or 422 Invalid) to refuse.
 */
export interface AdmissionPlugin {
  name: string;
  handles(group: string, resource: string): boolean;
  mutate?(req: AdmissionRequest, ctx: AdmissionContext): void;
  validate?(req: AdmissionRequest, ctx: AdmissionContext): void;
}

/** A loop that runs inside the server process (namespace deleter, CSR signer, CRD establisher). */
export interface BuiltinController {
  name: string;
  start(signal: AbortSignal): void;
}

/** Storage key of an object: `/<group or core>/<resource>/<namespace>/<name>`. */
export function storageKey(group: string, resource: string, namespace: string, name: string): string {
  return `/${group || 'core'}/${resource}/${namespace}/${name}`;
}

/** Key prefix of a collection, optionally restricted to one namespace. */
export function storagePrefix(group: string, resource: string, namespace?: string): string {
  return namespace ? `/${group || 'core'}/${resource}/${namespace}/` : `/${group || 'core'}/${resource}/`;
}
