// JSON value helpers shared by the patch algorithms.

import { errorMessage } from '../../util/errors.js';
import { jsonTextTooDeep, nestingDepthMessage } from '../http/json-depth.js';

export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

/** Parses a JSON body; a syntax error or a document nested too deeply comes back as `error`. */
export function parseJson(body: string | Buffer): { ok: true; value: JsonValue } | { ok: false; error: string } {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  if (jsonTextTooDeep(text)) return { ok: false, error: nestingDepthMessage() };
  try {
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (e) {
    return { ok: false, error: errorMessage(e) };
  }
}
