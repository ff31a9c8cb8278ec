// The table columns kube-apiserver prints for the built-in kinds `kubectl get` shows most (its
// printers are Go code, not CRD printer columns): same names, order, types and cells.

import type { KubeObject } from '../../api/meta.js';
import type { PrinterColumn } from '../registry/types.js';

/** A column whose cell is computed from the object (jsonPath unused). */
export interface ComputedColumn extends PrinterColumn {
  cell: (obj: KubeObject, age: (iso: string | undefined) => string) => unknown;
}

const AGE_DESCRIPTION = 'CreationTimestamp is a timestamp representing the server time when this object was created.';

function col(name: string, type: string, description: string, cell: ComputedColumn['cell'], priority = 0): ComputedColumn {
  return { name, type, format: '', description, priority, jsonPath: '', cell };
}

const age = col('Age', 'string', AGE_DESCRIPTION, (o, a) => a(o.metadata.creationTimestamp));
const keyCount = (...fields: string[]) => (o: KubeObject): number =>
  fields.reduce((n, f) => n + Object.keys((o[f] as Record<string, unknown> | undefined) ?? {}).length, 0);
const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const subjectNames = (kind: string) => (o: KubeObject): string =>
  ((o.subjects as Array<{ kind?: string; name?: string; namespace?: string }> | undefined) ?? [])
    .filter((s) => s.kind === kind)
    .map((s) => (kind === 'ServiceAccount' ? `${s.namespace ?? ''}/${s.name ?? ''}` : (s.name ?? '')))
    .join(', ');

const bindingColumns: ComputedColumn[] = [
  col('Role', 'string', 'Role is the role being referenced', (o) => {
    const ref = (o.roleRef ?? {}) as { kind?: string; name?: string };
    return `${ref.kind ?? ''}/${ref.name ?? ''}`;
  }),
  age,
  col('Users', 'string', 'Users in the roleBinding', subjectNames('User'), 1),
  col('Groups', 'string', 'Groups in the roleBinding', subjectNames('Group'), 1),
  col('ServiceAccounts', 'string', 'ServiceAccounts in the roleBinding', subjectNames('ServiceAccount'), 1),
];

const PRINTERS: Record<string, ComputedColumn[]> = {
  '/configmaps': [col('Data', 'string', 'Data contains the configuration data.', keyCount('data', 'binaryData')), age],
  '/secrets': [
    col('Type', 'string', 'Used to facilitate programmatic handling of secret data.', (o) => text(o.type)),
    col('Data', 'string', 'Data contains the secret data.', keyCount('data')),
    age,
  ],
  '/serviceaccounts': [col('Secrets', 'string', 'Secrets is a list of the secrets in the same namespace that pods running using this ServiceAccount are allowed to use.', (o) => ((o.secrets as unknown[] | undefined) ?? []).length), age],
  '/namespaces': [col('Status', 'string', 'The status of the namespace', (o) => text((o.status as { phase?: unknown } | undefined)?.phase)), age],
  'coordination.k8s.io/leases': [col('Holder', 'string', 'HolderIdentity contains the identity of the holder of a current lease.', (o) => text((o.spec as { holderIdentity?: unknown } | undefined)?.holderIdentity)), age],
  'rbac.authorization.k8s.io/rolebindings': bindingColumns,
  'rbac.authorization.k8s.io/clusterrolebindings': bindingColumns,
};

/** The columns after Name of a built-in kind with a printer of its own; undefined → Name and Created At. */
export function builtinPrinterColumns(group: string, resource: string): ComputedColumn[] | undefined {
  return PRINTERS[`${group}/${resource}`];
}
