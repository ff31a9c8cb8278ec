// The selectable fields of each kind (what `fieldSelector=` may name) and how to read them from an
// object, as kube-apiserver's registries define them (GetAttrs / field label conversion). Pure.

import type { KubeObject } from '../../api/meta.js';

/** Identifies the kind an object belongs to, for its selectable fields. */
export interface SelectableKind {
  /** API group ('' for core). */
  group: string;
  kind: string;
  namespaced: boolean;
}

type Getter = (obj: KubeObject) => string | undefined;

/** The getter of each field label a kind supports. */
export type FieldGetters = Record<string, Getter>;

function path(...keys: string[]): Getter {
  return (obj) => {
    let cur: unknown = obj;
    for (const k of keys) {
      if (cur === null || typeof cur !== 'object') return undefined;
      cur = (cur as Record<string, unknown>)[k];
    }
    if (cur === undefined || cur === null) return undefined;
    return typeof cur === 'string' ? cur : String(cur);
  };
}

const EVENT_OBJECT_FIELDS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

/** Per-kind field getters beyond metadata.name/metadata.namespace, as kube-apiserver's, keyed by `group/Kind`. */
function extraGetters(group: string, kind: string): Record<string, Getter> {
  switch (`${group}/${kind}`) {
    case '/Secret':
      return { type: path('type') };
    case '/Namespace':
      return { 'status.phase': path('status', 'phase') };
    case '/Node':
      // Absent spec.unschedulable reads as "false", as kube's node field set does.
      return { 'spec.unschedulable': (o) => path('spec', 'unschedulable')(o) ?? 'false' };
    case '/Pod':
      return Object.fromEntries(
        ['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'status.phase', 'status.podIP']
          .map((f) => [f, path(...f.split('.'))]),
      );
    case '/Event':
      return {
        ...Object.fromEntries(EVENT_OBJECT_FIELDS.map((f) => [`involvedObject.${f}`, path('involvedObject', f)])),
        reason: path('reason'),
        reportingComponent: path('reportingComponent'),
        source: (o) => path('source', 'component')(o) || path('reportingComponent')(o),
        type: path('type'),
      };
    case 'events.k8s.io/Event':
      // Same storage as core events: read either shape.
      return {
        ...Object.fromEntries(EVENT_OBJECT_FIELDS.map((f) => [
          `regarding.${f}`, (o: KubeObject) => path('regarding', f)(o) ?? path('involvedObject', f)(o),
        ])),
        reason: path('reason'),
        reportingController: (o) => path('reportingController')(o) ?? path('reportingComponent')(o),
        type: path('type'),
      };
    case 'certificates.k8s.io/CertificateSigningRequest':
      return { 'spec.signerName': path('spec', 'signerName') };
    default:
      return {};
  }
}

/**
 * Getters for every field label the kind supports. `metadata.namespace` is accepted for every kind,
 * as kube's default field-label conversion does; cluster-scoped objects read it as "".
 */
export function fieldGettersFor(k: SelectableKind): FieldGetters {
  return {
    'metadata.name': path('metadata', 'name'),
    'metadata.namespace': k.namespaced ? path('metadata', 'namespace') : () => '',
    ...extraGetters(k.group, k.kind),
  };
}

/** The values of `fields` (all the kind offers by default) of an object; an absent field reads "". */
export function selectableFieldValues(obj: KubeObject, getters: FieldGetters, fields: Iterable<string> = Object.keys(getters)): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) out[f] = getters[f]?.(obj) ?? '';
  return out;
}
