// Request body reading (3 MiB limit) and decoding (JSON, YAML for create/update), refusing documents
// nested deeper than the server's recursive code can take.

import type { IncomingMessage } from 'node:http';
import { errorMessage } from '../../util/errors.js';
import { parseYaml } from '../../util/yaml.js';
import { errors } from './errors.js';
import { ACCEPTED_BODY, mediaType } from './negotiate.js';
import { jsonTextTooDeep, nestingDepthMessage, valueTooDeep } from './json-depth.js';
import { decodeProtobufObject, ProtobufDecodeError } from './protobuf.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** Reads the whole body; 413 beyond `limit` (the rest of the upload is drained, not buffered). */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) {
    req.resume();
    return Promise.reject(errors.tooLarge(limit));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > limit) {
        failed = true;
        chunks.length = 0;
        reject(errors.tooLarge(limit));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) {
        failed = true;
        reject(e);
      }
    });
  });
}

/** Decodes a create/update body (JSON or YAML); empty → undefined. */
export function decodeObjectBody(buf: Buffer, contentType: string | undefined, opts: { yamlAllowed: boolean }): unknown {
  if (buf.length === 0) return undefined;
  const mt = mediaType(contentType);
  const text = buf.toString('utf8');
  if (mt === '' || mt === 'application/json' || mt === '*/*') {
    if (jsonTextTooDeep(text)) throw errors.badRequest(`the object provided is unrecognized (unable to decode JSON: ${nestingDepthMessage()})`);
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw errors.badRequest(`the object provided is unrecognized (unable to decode JSON: ${errorMessage(err)})`);
    }
  }
  if (opts.yamlAllowed && (mt === 'application/yaml' || mt === 'application/apply-patch+yaml')) {
    let doc: unknown;
    try {
      doc = parseYaml(text);
    } catch (err) {
      throw errors.badRequest(`the object provided is unrecognized (unable to decode YAML: ${errorMessage(err)})`);
    }
    if (valueTooDeep(doc)) throw errors.badRequest(`the object provided is unrecognized (unable to decode YAML: ${nestingDepthMessage()})`);
    return doc;
  }
  if (mt === PROTOBUF) {
    try {
      return decodeProtobufObject(buf);
    } catch (err) {
      if (err instanceof ProtobufDecodeError) throw errors.badRequest(`the object provided is unrecognized (unable to decode protobuf: ${err.message})`);
      throw err;
    }
  }
  throw errors.unsupportedMediaType(ACCEPTED_BODY);
}
