// A resource request on its way through the server: as routed (after authentication and
// authorization), and once resolved against the registry, which is what each verb's handler takes.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { UserInfo } from '../pipeline.js';
import type { RequestScope } from '../registry/rest-context.js';
import type { ServedResource, SubresourceDef } from '../registry/types.js';
import type { QualifiedResource } from './errors.js';
import type { OutputContext } from './output.js';
import type { ResourceRequestInfo } from './request-info.js';

export interface ResourceRequest {
  req: IncomingMessage;
  res: ServerResponse;
  info: ResourceRequestInfo;
  query: URLSearchParams;
  user: UserInfo;
  requestId: string;
}

/** A request whose resource, scope and output format are known. */
export interface VerbRequest extends ResourceRequest {
  served: ServedResource;
  version: string;
  scope: RequestScope;
  output: OutputContext;
  /** Object name from the path ('' for collections). */
  name: string;
  /** '' for the main resource. */
  subresource: string;
  subresourceDef: SubresourceDef | undefined;
  /** The resource (or resource/subresource) as error messages name it. */
  qr: QualifiedResource;
}

/** The core namespaces resource, which is cluster-scoped yet also reached under its own name as a namespace path. */
export function isNamespaceResource(served: ServedResource): boolean {
  return !served.custom && served.def.group === '' && served.def.resource === 'namespaces';
}
