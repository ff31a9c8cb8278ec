// Table output for `kubectl get`: default Name/Created At columns, CRD printer columns.

import type { KubeObject } from '../../api/meta.js';
import type { PrinterColumn } from '../registry/types.js';
import type { ComputedColumn } from './builtin-printers.js';
import { evalJsonPath, parseJsonPath } from './jsonpath.js';

export interface TableOptions {
  apiVersion: string;
  /** Printer columns (CRDs, or a built-in kind's computed ones); undefined → default columns. */
  columns?: Array<PrinterColumn | ComputedColumn>;
  includeObject: 'None' | 'Metadata' | 'Object';
  withHeaders: boolean;
  now: number;
}

export function humanAge(fromIso: string | undefined, now: number): string {
  if (!fromIso) return '<unknown>';
  const secs = Math.max(0, Math.floor((now - Date.parse(fromIso)) / 1000));
  if (secs < 120) return `${secs}s`;
  const mins = Math.floor(secs / 60);
  if (mins < 10) return `${mins}m${secs % 60 ? `${secs % 60}s` : ''}`;
  if (mins < 180) return `${mins}m`;
  const hours = Math.floor(mins / 60);
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (days < 730) return `${days}d`;
  return `${Math.floor(days / 365)}y`;
}

const NAME_COL = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names', priority: 0 };

function columnDefs(columns: TableOptions['columns']): Record<string, unknown>[] {
  if (!columns) {
    return [NAME_COL, { name: 'Created At', type: 'date', format: '', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', priority: 0 }];
  }
  const cols = columns.length > 0 ? columns : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  // A CRD column without a description is described by its path, as kube-apiserver does.
  const describe = (c: PrinterColumn): string => c.description || (c.jsonPath ? `Custom resource definition column (in JSONPath format): ${c.jsonPath}` : '');
  return [NAME_COL, ...cols.map((c) => ({ name: c.name, type: c.type, format: c.format ?? '', description: describe(c), priority: c.priority ?? 0 }))];
}

function cellsOf(obj: KubeObject, columns: TableOptions['columns'], now: number): unknown[] {
  if (!columns) return [obj.metadata.name, obj.metadata.creationTimestamp ?? null];
  const cols = columns.length > 0 ? columns : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  return [obj.metadata.name, ...cols.map((c) => {
    if ('cell' in c) return c.cell(obj, (iso) => humanAge(iso, now));
    let values: unknown[];
    try {
      values = evalJsonPath(obj, parseJsonPath(c.jsonPath));
    } catch {
      return null;
    }
    if (values.length === 0) return null;
    if (c.type === 'date') return humanAge(typeof values[0] === 'string' ? values[0] : undefined, now);
    if (values.length > 1) return values.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',');
    const v = values[0];
    if (c.type === 'integer' || c.type === 'number' || c.type === 'boolean') return v;
    return typeof v === 'string' ? v : JSON.stringify(v);
  })];
}

function rowObject(obj: KubeObject, mode: TableOptions['includeObject']): unknown {
  if (mode === 'None') return undefined;
  if (mode === 'Object') return obj;
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}

export function toTable(items: KubeObject[], listMeta: { resourceVersion?: string; continue?: string }, o: TableOptions): Record<string, unknown> {
  return {
    kind: 'Table',
    apiVersion: o.apiVersion,
    metadata: { resourceVersion: listMeta.resourceVersion ?? '', ...(listMeta.continue ? { continue: listMeta.continue } : {}) },
    ...(o.withHeaders ? { columnDefinitions: columnDefs(o.columns) } : { columnDefinitions: null }),
    rows: items.map((it) => {
      const object = rowObject(it, o.includeObject);
      return { cells: cellsOf(it, o.columns, o.now), ...(object !== undefined ? { object } : {}) };
    }),
  };
}

export function toPartial(obj: KubeObject): KubeObject {
  return { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: obj.metadata };
}
