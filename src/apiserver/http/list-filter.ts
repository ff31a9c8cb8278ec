// Label and field selectors of LIST/WATCH/DELETECOLLECTION as one object predicate.

import type { KubeObject } from '../../api/meta.js';
import { matchesFields, parseFieldSelector } from '../../api/field-selectors.js';
import { matchesLabels, parseLabelSelector } from '../../api/label-selectors.js';
import { SelectorParseError } from '../../api/selector-error.js';
import { fieldGettersFor, selectableFieldValues } from '../registry/field-getters.js';
import type { ServedResource } from '../registry/types.js';
import { errors } from './errors.js';

export interface SelectorQuery {
  labelSelector?: string | null;
  fieldSelector?: string | null;
  /** Object named in the path (watch on one object). */
  pathName?: string;
}

/** Builds the predicate, or undefined when nothing is selected on. 400 on malformed selectors. */
export function buildFilter(served: ServedResource, q: SelectorQuery): ((obj: KubeObject) => boolean) | undefined {
  const getters = fieldGettersFor({ group: served.def.group, kind: served.def.kind, namespaced: served.def.namespaced });
  try {
    const labels = q.labelSelector ? parseLabelSelector(q.labelSelector) : undefined;
    const fields = q.fieldSelector ? parseFieldSelector(q.fieldSelector, Object.keys(getters)) : undefined;
    if (q.pathName && fields) {
      const nameReq = fields.requirements.find((r) => r.field === 'metadata.name' && r.operator === 'Equals');
      if (nameReq && nameReq.value !== q.pathName) throw errors.badRequest("fieldSelector metadata.name doesn't match requested name");
    }
    const preds: ((o: KubeObject) => boolean)[] = [];
    if (labels && labels.requirements.length > 0) preds.push((o) => matchesLabels(labels, o.metadata.labels));
    if (fields && fields.requirements.length > 0) {
      const used = [...new Set(fields.requirements.map((r) => r.field))];
      preds.push((o) => matchesFields(fields, selectableFieldValues(o, getters, used)));
    }
    if (q.pathName) {
      const name = q.pathName;
      preds.push((o) => o.metadata.name === name);
    }
    if (preds.length === 0) return undefined;
    if (preds.length === 1) return preds[0];
    return (o) => preds.every((p) => p(o));
  } catch (err) {
    if (err instanceof SelectorParseError) throw errors.badRequest(err.message);
    throw err;
  }
}
