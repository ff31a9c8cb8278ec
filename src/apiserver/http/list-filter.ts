// Label and field selectors of LIST/WATCH/DELETECOLLECTION as one object predicate.

import type { KubeObject } from '../../api/meta.js';
import { matchesFields, parseFieldSelector, type FieldSelector } from '../../api/field-selectors.js';
import { matchesLabels, parseLabelSelector, type LabelSelector } from '../../api/label-selectors.js';
import { SelectorParseError } from '../../api/selector-error.js';
import { fieldGettersFor, selectableFieldValues } from '../registry/field-getters.js';
import type { ServedResource } from '../registry/types.js';
import type { SelectorHints } from '../storage/types.js';
import { errors } from './errors.js';

export interface SelectorQuery {
  labelSelector?: string | null;
  fieldSelector?: string | null;
  /** Object named in the path (watch on one object). */
  pathName?: string;
}

export interface Selection {
  /** The predicate, or undefined when nothing is selected on. */
  filter?: (obj: KubeObject) => boolean;
  /** metadata.name every match has (field selector or the name in the path). */
  name?: string;
  /** metadata.namespace every match has (field selector). */
  namespace?: string;
  /** For the store: a label requirement every match meets. */
  hints: SelectorHints;
}

/** The predicate, or undefined when nothing is selected on. 400 on malformed selectors. */
export function buildFilter(served: ServedResource, q: SelectorQuery): ((obj: KubeObject) => boolean) | undefined {
  return buildSelection(served, q).filter;
}

/** Equality requirements on a field (all must hold, so any one of them pins the value). */
function fieldEquals(fields: FieldSelector | undefined, field: string): string | undefined {
  return fields?.requirements.find((r) => r.field === field && r.operator === 'Equals')?.value;
}

/**
 * The first label requirement that names the values a match must carry; an `in` set with more
 * values is still a hint (any of them), `notin`/`!=`/existence are not.
 */
function labelHint(labels: LabelSelector | undefined): SelectorHints['label'] {
  const r = labels?.requirements.find((x) => x.operator === 'Equals' || x.operator === 'DoubleEquals' || x.operator === 'In');
  return r ? { key: r.key, values: r.values } : undefined;
}

/** The predicate of the selectors plus what they pin down. 400 on malformed selectors. */
export function buildSelection(served: ServedResource, q: SelectorQuery): Selection {
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
    const name = q.pathName ?? fieldEquals(fields, 'metadata.name');
    const namespace = fieldEquals(fields, 'metadata.namespace');
    const label = labels?.matchNothing ? undefined : labelHint(labels);
    const sel: Selection = { hints: label ? { label } : {}, ...(name !== undefined ? { name } : {}), ...(namespace !== undefined ? { namespace } : {}) };
    if (preds.length === 1) sel.filter = preds[0];
    else if (preds.length > 1) sel.filter = (o) => preds.every((p) => p(o));
    return sel;
  } catch (err) {
    if (err instanceof SelectorParseError) throw errors.badRequest(err.message);
    throw err;
  }
}
