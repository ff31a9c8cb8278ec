// Custom resources: the ManagedCluster CRD from manifests/crds and a small namespaced CRD of our own
// (schema with defaults, validation and a status subresource) are installed in both servers, then
// used like the built-ins.
import { readFileSync } from 'node:fs';
import { parseYaml } from '../../../../src/util/yaml.js';
import type { HttpAnswer, Step } from '../types.js';
import { field, get, only, post, put, saveMeta } from './build.js';
import { crudSteps } from './crud.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const NS = 'diff-crd';
const WIDGETS = `/apis/diff.example.com/v1/namespaces/${NS}/widgets`;

const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.diff.example.com' },
  spec: {
    group: 'diff.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [{ name: 'Size', type: 'integer', jsonPath: '.spec.size' }],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            description: 'A widget of the differential test.',
            properties: {
              spec: {
                type: 'object',
                description: 'What the widget should be.',
                required: ['size'],
                properties: {
                  size: { type: 'integer', minimum: 1, maximum: 10, description: 'How big.' },
                  color: { type: 'string', enum: ['red', 'blue'], default: 'red' },
                  tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
                  labels: { type: 'object', additionalProperties: { type: 'string' } },
                },
              },
              status: { type: 'object', properties: { phase: { type: 'string' }, conditions: { type: 'array', items: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } } },
            },
          },
        },
      },
    ],
  },
};

const managedClusterCrd = parseYaml(readFileSync(new URL('../../../../manifests/crds/managedclusters.cluster.open-cluster-management.io.yaml', import.meta.url), 'utf8')) as unknown;

const established = (a: HttpAnswer): boolean =>
  Array.isArray(field(a.body, 'status.conditions')) &&
  (field(a.body, 'status.conditions') as unknown[]).some((c) => field(c, 'type') === 'Established' && field(c, 'status') === 'True');

/** Only what both servers must agree on for a CRD: its spec and its accepted/established state. */
const crdState = (n: { status: number; body: unknown }): { status: number; body: unknown } => {
  const conds = field(n.body, 'status.conditions');
  return {
    status: n.status,
    body: {
      name: field(n.body, 'metadata.name'),
      conditions: Array.isArray(conds) ? conds.map((c) => `${String(field(c, 'type'))}=${String(field(c, 'status'))}`).sort() : conds,
      acceptedNames: field(n.body, 'status.acceptedNames'),
      storedVersions: field(n.body, 'status.storedVersions'),
    },
  };
};

export function crdSteps(): Step[] {
  const widget = (name: string, spec: unknown): unknown => ({ apiVersion: 'diff.example.com/v1', kind: 'Widget', metadata: { name, namespace: NS }, spec });
  return [
    post('crd: create widgets', CRDS, widgetCrd, { normalise: only('metadata.name', 'spec.names') }),
    post('crd: create managedclusters', CRDS, managedClusterCrd, { normalise: only('metadata.name', 'spec.names') }),
    get('crd: widgets established', `${CRDS}/widgets.diff.example.com`, { until: established, normalise: crdState }),
    get('crd: managedclusters established', `${CRDS}/managedclusters.cluster.open-cluster-management.io`, { until: established, normalise: crdState }),
    post('crd: namespace', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }),
    get('crd: widgets served', WIDGETS, { until: (a) => a.status === 200 }),
    get('crd: managedclusters served', '/apis/cluster.open-cluster-management.io/v1/managedclusters', { until: (a) => a.status === 200 }),
    get('crd: discovery of the group', '/apis/diff.example.com/v1'),
    ...crudSteps({
      label: 'widget', apiVersion: 'diff.example.com/v1', kind: 'Widget', collection: WIDGETS, name: 'diff-widget', namespace: NS,
      fields: { spec: { size: 1, tags: ['a'] } }, updated: { spec: { size: 2, tags: ['a', 'b'] } },
      merge: { spec: { labels: { x: 'y' } } }, json: [{ op: 'add', path: '/spec/tags/-', value: 'c' }], strategic: { spec: { size: 3 } },
      applied: { spec: { size: 4, tags: ['d'] } }, conflicting: { spec: { size: 5 } },
    }),
    ...crudSteps({
      label: 'managedcluster', apiVersion: 'cluster.open-cluster-management.io/v1', kind: 'ManagedCluster', collection: '/apis/cluster.open-cluster-management.io/v1/managedclusters', name: 'diff-cluster',
      fields: { spec: { hubAcceptsClient: false } }, updated: { spec: { hubAcceptsClient: true } },
      merge: { spec: { leaseDurationSeconds: 30 } }, json: [{ op: 'add', path: '/spec/managedClusterClientConfigs', value: [{ url: 'https://a.example.com' }] }], strategic: { spec: { leaseDurationSeconds: 40 } },
      applied: { spec: { hubAcceptsClient: true } }, conflicting: { spec: { hubAcceptsClient: false } },
    }),
    post('widget: invalid size (Invalid, causes)', WIDGETS, widget('bad-size', { size: 11 })),
    post('widget: wrong type (Invalid)', WIDGETS, widget('bad-type', { size: 'big' })),
    post('widget: missing required field (Invalid)', WIDGETS, widget('no-size', {})),
    post('widget: enum violation (Invalid)', WIDGETS, widget('bad-color', { size: 1, color: 'green' })),
    post('widget: duplicate in a set list (Invalid)', WIDGETS, widget('dup-tags', { size: 1, tags: ['a', 'a'] })),
    post('widget: unknown field is pruned, default applied', WIDGETS, widget('pruned', { size: 1, shape: 'round' }), { save: saveMeta('widget_rv') }),
    put('widget: status subresource', `${WIDGETS}/pruned/status`, undefined, {
      bodyFrom: (v) => ({ apiVersion: 'diff.example.com/v1', kind: 'Widget', metadata: { name: 'pruned', namespace: NS, resourceVersion: v.widget_rv }, spec: { size: 9 }, status: { phase: 'Ready' } }),
    }),
    get('widget: status update leaves spec alone', `${WIDGETS}/pruned`),
    get('widget: table output', WIDGETS, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' }, normalise: (n) => ({ status: n.status, body: field(n.body, 'columnDefinitions') }) }),
  ];
}
