// The object a create or update sends, decoded and checked against the type the URL names.

import type { IncomingMessage } from 'node:http';
import { apiVersionOf, type KubeObject } from '../../api/meta.js';
import type { ServedResource } from '../registry/types.js';
import { decodeObjectBody, readBody } from './body.js';
import { errors } from './errors.js';

/**
 * Checks apiVersion/kind of a body against the URL. Built-in kinds get them filled in when absent
 * (kube-apiserver decodes into the type the URL names); a custom resource must carry its kind and
 * apiVersion, as kube-apiserver's unstructured decoding requires.
 */
export function checkTypeMeta(body: unknown, served: Pick<ServedResource, 'def' | 'custom'>, version: string): KubeObject {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw errors.badRequest('the object provided is unrecognized: the body must be a JSON object');
  }
  const obj = body as KubeObject;
  const expected = apiVersionOf({ group: served.def.group, version });
  if (served.custom) {
    if (obj.kind === undefined || obj.kind === '') {
      const kind = served.def.kind;
      const dataVersion = typeof obj.apiVersion === 'string' && obj.apiVersion !== '' ? (obj.apiVersion.split('/').pop() ?? '') : version;
      throw errors.badRequest(`${kind} in version ${JSON.stringify(dataVersion)} cannot be handled as a ${kind}: Object 'Kind' is missing in '${JSON.stringify(obj)}'`);
    }
    if (obj.apiVersion === undefined || obj.apiVersion === '') {
      throw errors.badRequest(`the API version in the data () does not match the expected API version (${expected})`);
    }
  }
  if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
    throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`);
  }
  if (obj.kind !== undefined && obj.kind !== served.def.kind) {
    throw errors.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${served.def.kind})`);
  }
  if (obj.metadata !== undefined && (typeof obj.metadata !== 'object' || obj.metadata === null || Array.isArray(obj.metadata))) {
    throw errors.badRequest('the object provided is unrecognized: metadata must be an object');
  }
  return { ...obj, apiVersion: expected, kind: served.def.kind, metadata: obj.metadata ?? {} };
}

export interface ObjectBodyRequest {
  req: IncomingMessage;
  maxBodyBytes: number;
  served: Pick<ServedResource, 'def' | 'custom'>;
  version: string;
}

/** Reads the body (JSON or YAML) as an object of the URL's type; an empty body is a 400. */
export async function readObject(r: ObjectBodyRequest): Promise<KubeObject> {
  const buf = await readBody(r.req, r.maxBodyBytes);
  const body = decodeObjectBody(buf, r.req.headers['content-type'], { yamlAllowed: true });
  if (body === undefined) throw errors.badRequest('the request body is empty; an object is required');
  return checkTypeMeta(body, r.served, r.version);
}
