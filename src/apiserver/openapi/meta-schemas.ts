// The shared apimachinery types every kind refers to (ObjectMeta, ListMeta, Status, ...), in
// OpenAPI 3 form. Field names and types are those of meta/v1; the descriptions are ours.

import { metaName } from './names.js';
import type { Schema } from './types.js';

/** A `$ref` to another definition, OpenAPI 3 style. */
export function ref(name: string): Schema {
  return { $ref: `#/components/schemas/${name}` };
}

/** A field typed by another definition, with its own description (kube-apiserver's allOf wrapper). */
export function refField(name: string, description: string, extra: Schema = {}): Schema {
  return { allOf: [ref(name)], ...(description ? { description } : {}), ...extra };
}

const str = (description: string): Schema => ({ type: 'string', description });
const int = (description: string, format = 'int64'): Schema => ({ type: 'integer', format, description });
const bool = (description: string): Schema => ({ type: 'boolean', description });
const strings = (description: string): Schema => ({ type: 'array', items: { type: 'string', default: '' }, description });
const stringMap = (description: string): Schema => ({ type: 'object', additionalProperties: { type: 'string', default: '' }, description });
const time = (description: string): Schema => refField(metaName('Time'), description);

const objectMeta: Schema = {
  type: 'object',
  description: 'Metadata every persisted object carries: its identity, labels and annotations, and bookkeeping the server maintains.',
  properties: {
    annotations: stringMap('Arbitrary non-identifying key/value data attached by tools and users; not usable in selectors.'),
    creationTimestamp: time('When the server created the object (read-only, UTC, RFC 3339).'),
    deletionGracePeriodSeconds: int('Seconds the object is given to terminate gracefully once deletion was requested (read-only).'),
    deletionTimestamp: time('When deletion was requested; the object is removed once its finalizers are gone (read-only).'),
    finalizers: { ...strings('Names of the parties that must finish cleaning up before the object is deleted.'), 'x-kubernetes-list-type': 'set', 'x-kubernetes-patch-strategy': 'merge' },
    generateName: str('Prefix from which the server generates a unique name when no name is given.'),
    generation: int('Sequence number of the desired state, incremented by the server on spec changes (read-only).'),
    labels: stringMap('Identifying key/value pairs used to organise and select objects.'),
    managedFields: { type: 'array', items: refField(metaName('ManagedFieldsEntry'), '', { default: {} }), description: 'Which manager owns which fields (server-side apply bookkeeping); mostly for internal use.' },
    name: str('Name of the object, unique within its namespace (or cluster-wide for cluster-scoped kinds); cannot be changed.'),
    namespace: str('Namespace the object lives in; empty for cluster-scoped kinds.'),
    ownerReferences: {
      type: 'array', items: refField(metaName('OwnerReference'), '', { default: {} }),
      description: 'Objects this one depends on; the garbage collector deletes it once all of its owners are gone.',
      'x-kubernetes-list-map-keys': ['uid'], 'x-kubernetes-list-type': 'map', 'x-kubernetes-patch-merge-key': 'uid', 'x-kubernetes-patch-strategy': 'merge',
    },
    resourceVersion: str('Opaque version of the object, changed on every write; used for optimistic concurrency and watches.'),
    selfLink: str('Deprecated and left empty.'),
    uid: str('Unique identifier the server assigns on creation; never reused.'),
  },
};

const listMeta: Schema = {
  type: 'object',
  description: 'Metadata of a list response.',
  properties: {
    continue: str('Token for the next page when the list was cut by a limit; empty on the last page.'),
    remainingItemCount: int('Estimated number of items after this page, when known.'),
    resourceVersion: str('Version of the collection the list was read at; start a watch from here.'),
    selfLink: str('Deprecated and left empty.'),
  },
};

const ownerReference: Schema = {
  type: 'object',
  description: 'Points at an object that owns this one.',
  required: ['apiVersion', 'kind', 'name', 'uid'],
  properties: {
    apiVersion: str('API version of the owner.'),
    blockOwnerDeletion: bool('With foreground deletion, the owner is not removed before this object is.'),
    controller: bool('Whether the owner is the managing controller; at most one owner is.'),
    kind: str('Kind of the owner.'),
    name: str('Name of the owner.'),
    uid: str('UID of the owner.'),
  },
  'x-kubernetes-map-type': 'atomic',
};

const managedFieldsEntry: Schema = {
  type: 'object',
  description: 'The set of fields one manager owns after one kind of operation.',
  properties: {
    apiVersion: str('API version the field set is expressed in.'),
    fieldsType: str('Format of fieldsV1; always "FieldsV1".'),
    fieldsV1: refField(metaName('FieldsV1'), 'The owned fields, as a tree of field keys.'),
    manager: str('Name of the manager (the fieldManager of its requests).'),
    operation: str('Apply or Update.'),
    subresource: str('Subresource the fields were written through, if any.'),
    time: time('When the entry last changed.'),
  },
};

const statusCause: Schema = {
  type: 'object',
  description: 'One reason a request failed, often tied to a field.',
  properties: {
    field: str('Path of the offending field, when there is one.'),
    message: str('Human-readable explanation.'),
    reason: str('Machine-readable cause.'),
  },
};

const statusDetails: Schema = {
  type: 'object',
  description: 'Extra data about a failure: the object concerned and its causes.',
  properties: {
    causes: { type: 'array', items: refField(metaName('StatusCause'), '', { default: {} }), description: 'Individual causes of the failure.' },
    group: str('Group of the resource concerned.'),
    kind: str('Kind or resource of the object concerned.'),
    name: str('Name of the object concerned.'),
    retryAfterSeconds: int('Seconds to wait before retrying.', 'int32'),
    uid: str('UID of the object concerned.'),
  },
};

const status: Schema = {
  type: 'object',
  description: 'The result of an operation that returns no object, and the body of every error.',
  properties: {
    apiVersion: str('Versioned schema of this representation.'),
    code: int('HTTP status code.', 'int32'),
    details: refField(metaName('StatusDetails'), 'Extended data about the failure.'),
    kind: str('Always "Status".'),
    message: str('Human-readable description.'),
    metadata: refField(metaName('ListMeta'), 'List metadata (unused).', { default: {} }),
    reason: str('Machine-readable reason (NotFound, Conflict, Invalid...).'),
    status: str('"Success" or "Failure".'),
  },
  'x-kubernetes-group-version-kind': [{ group: '', kind: 'Status', version: 'v1' }],
};

const preconditions: Schema = {
  type: 'object',
  description: 'Conditions that must hold for a delete to proceed.',
  properties: {
    resourceVersion: str('The object must still be at this resourceVersion.'),
    uid: str('The object must still have this UID.'),
  },
};

const deleteOptions: Schema = {
  type: 'object',
  description: 'Options of a delete request.',
  properties: {
    apiVersion: str('Versioned schema of this representation.'),
    dryRun: strings('"All" runs every stage of the delete without persisting it.'),
    gracePeriodSeconds: int('Seconds before the object is deleted; zero means immediately.'),
    kind: str('Always "DeleteOptions".'),
    orphanDependents: bool('Deprecated: use propagationPolicy.'),
    preconditions: refField(metaName('Preconditions'), 'Must be fulfilled before the delete proceeds.'),
    propagationPolicy: str('What happens to dependents: Orphan, Background or Foreground.'),
  },
};

/** Every shared meta definition, by definition name. */
export function metaSchemas(): Record<string, Schema> {
  return {
    [metaName('DeleteOptions')]: deleteOptions,
    [metaName('FieldsV1')]: { type: 'object', description: 'A set of fields, encoded as a JSON tree of field keys.' },
    [metaName('ListMeta')]: listMeta,
    [metaName('ManagedFieldsEntry')]: managedFieldsEntry,
    [metaName('ObjectMeta')]: objectMeta,
    [metaName('OwnerReference')]: ownerReference,
    [metaName('Patch')]: { type: 'object', description: 'A patch body, in the format the Content-Type names.' },
    [metaName('Preconditions')]: preconditions,
    [metaName('Status')]: status,
    [metaName('StatusCause')]: statusCause,
    [metaName('StatusDetails')]: statusDetails,
    [metaName('Time')]: { type: 'string', format: 'date-time', description: 'A timestamp in RFC 3339 form, to the second.' },
  };
}
