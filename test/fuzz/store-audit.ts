// "Nothing outside the requester's rights changes": every write the store records while a request
// is served is attributed to that request (requests are sent one at a time) and checked:
// - a refused request (4xx, or no answer), a read (GET, HEAD, OPTIONS, watch) and a dry run write nothing;
// - a successful write by anyone but a superuser changes only objects a SubjectAccessReview says the
//   requester may change with that kind of write;
// - no object above kube-apiserver's size limit is stored.
// Writes of the server's own controllers, which follow earlier requests (namespace clean-up, the
// default ServiceAccount and root CA ConfigMap of new namespaces, the CSR signer's certificate, CRD
// status, the expiry of old Events), are recognised by what they touch and left out.

import type { KubeObject } from '../../src/api/meta.js';
import type { Store, StoreEvent, WatchSubscription } from '../../src/apiserver/storage/types.js';
import type { KubeClient } from '../../src/client/types.js';
import type { UserRef } from './identities.js';
import type { Violation } from './response-oracle.js';

export interface StoreRecorder {
  /** Events with `after` < revision ≤ `upTo`, once delivered (bounded wait). */
  eventsBetween(after: number, upTo: number): Promise<StoreEvent[]>;
  /** Forget events up to `revision`. */
  drop(revision: number): void;
  close(): void;
}

export function recordStore(store: Store, waitMs = 3000): StoreRecorder {
  let events: StoreEvent[] = [];
  let last = store.currentRevision();
  const waiters = new Set<() => void>();
  const sub: WatchSubscription = store.watch('/', {
    fromRevision: last,
    onEvent(ev) {
      events.push(ev);
      last = Math.max(last, ev.revision);
      for (const w of [...waiters]) w();
    },
  });
  return {
    async eventsBetween(after, upTo) {
      const deadline = Date.now() + waitMs;
      while (last < upTo && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          const t = setTimeout(done, Math.max(1, deadline - Date.now()));
          function done(): void {
            clearTimeout(t);
            waiters.delete(done);
            resolve();
          }
          waiters.add(done);
        });
      }
      return events.filter((e) => e.revision > after && e.revision <= upTo);
    },
    drop(revision) {
      events = events.filter((e) => e.revision > revision);
    },
    close() {
      sub.close();
    },
  };
}

interface KeyParts {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

/** `/<group or core>/<resource>/<namespace>/<name>` → parts. */
export function keyParts(key: string): KeyParts {
  const [, g = '', resource = '', namespace = '', ...rest] = key.split('/');
  return { group: g === 'core' ? '' : g, resource, namespace, name: rest.join('/') };
}

function withoutStatus(o: KubeObject | undefined): string {
  if (!o) return '';
  const { status: _s, metadata, ...rest } = o as KubeObject & { status?: unknown };
  const { resourceVersion: _rv, managedFields: _mf, ...meta } = metadata;
  return JSON.stringify({ ...rest, metadata: meta });
}

function isApproved(o: KubeObject | undefined): boolean {
  const conds = (o as { status?: { conditions?: { type?: string; status?: string }[] } } | undefined)?.status?.conditions ?? [];
  return conds.some((c) => c.type === 'Approved' && c.status === 'True');
}

/** Events are expired an hour after they were last seen: the first of these timestamps they carry. */
const EVENT_TTL_MS = 3600_000;

function expiredEvent(o: KubeObject, now: number): boolean {
  const e = o as KubeObject & { lastTimestamp?: unknown; eventTime?: unknown; series?: { lastObservedTime?: unknown } };
  const seen = [e.lastTimestamp, e.series?.lastObservedTime, e.eventTime, o.metadata.creationTimestamp]
    .map((t) => (typeof t === 'string' ? Date.parse(t) : NaN)).find((t) => Number.isFinite(t));
  return seen !== undefined && seen < now - EVENT_TTL_MS;
}

/** A write of one of the server's own controllers (see the file comment). */
export function isControllerWrite(ev: StoreEvent, store: Pick<Store, 'get'>, now = Date.now()): boolean {
  const k = keyParts(ev.key);
  const terminating = (ns: string): boolean => {
    const cur = store.get(`/core/namespaces//${ns}`);
    return !cur || cur.object.metadata.deletionTimestamp !== undefined;
  };
  if (k.group === '' && k.resource === 'namespaces' && ev.prevObject?.metadata.deletionTimestamp) return true;
  if (k.namespace !== '' && terminating(k.namespace) && (ev.type === 'DELETED' || ev.object.metadata.deletionTimestamp !== undefined)) return true;
  if (ev.type === 'ADDED' && k.group === '' && ((k.resource === 'serviceaccounts' && k.name === 'default') || (k.resource === 'configmaps' && k.name === 'kube-root-ca.crt'))) return true;
  if (ev.type === 'MODIFIED' && k.group === 'certificates.k8s.io' && isApproved(ev.prevObject) && withoutStatus(ev.prevObject) === withoutStatus(ev.object)) return true;
  if (k.group === 'apiextensions.k8s.io' && ev.type === 'MODIFIED') {
    const strip = (o: KubeObject | undefined): string => withoutStatus(o ? { ...o, metadata: { ...o.metadata, finalizers: [] } } : undefined);
    if (strip(ev.prevObject) === strip(ev.object)) return true;
  }
  if (k.group === 'apiextensions.k8s.io' && ev.type === 'DELETED' && ev.prevObject?.metadata.deletionTimestamp) return true;
  if (ev.type === 'DELETED' && k.group === '' && k.resource === 'events' && expiredEvent(ev.object, now)) return true;
  if (ev.type === 'DELETED' && k.group !== '' && k.group !== 'apiextensions.k8s.io') {
    // Custom resources go away with their CRD.
    const crd = store.get(`/apiextensions.k8s.io/customresourcedefinitions//${k.resource}.${k.group}`);
    if (crd?.object.metadata.deletionTimestamp) return true;
  }
  return false;
}

export interface RequestTarget {
  resourceRequest: boolean;
  subresource: string;
  watch: boolean;
}

/** What the request path names, as far as the audit needs it (its own parser, not the server's). */
export function requestTarget(path: string, query: string): RequestTarget {
  let segs: string[];
  try {
    segs = path.split('/').filter((s) => s !== '').map((s) => decodeURIComponent(s));
  } catch {
    segs = path.split('/').filter((s) => s !== '');
  }
  let watchParam = false;
  try {
    const w = new URLSearchParams(query).get('watch');
    watchParam = w !== null && ['', '1', 't', 'T', 'true', 'TRUE', 'True'].includes(w);
  } catch {
    watchParam = false;
  }
  const start = segs[0] === 'api' ? 2 : segs[0] === 'apis' ? 3 : -1;
  if (start < 0 || segs.length <= start) return { resourceRequest: false, subresource: '', watch: false };
  let rest = segs.slice(start);
  const legacyWatch = rest[0] === 'watch';
  if (legacyWatch) rest = rest.slice(1);
  if (rest[0] === 'namespaces' && rest.length >= 3 && !(rest.length === 3 && (rest[2] === 'status' || rest[2] === 'finalize'))) rest = rest.slice(2);
  return { resourceRequest: true, subresource: rest[2] ?? '', watch: legacyWatch || watchParam };
}

const VERBS_FOR: Record<StoreEvent['type'], string[]> = {
  ADDED: ['create', 'update', 'patch'],
  MODIFIED: ['update', 'patch', 'delete'],
  DELETED: ['delete', 'deletecollection', 'update', 'patch'],
};

/** Resources stored under another API group's key. */
const STORED_ALIASES: Record<string, string[]> = { '/events': ['', 'events.k8s.io'] };

/** Whether SubjectAccessReviews let `user` make this change (some verb of the event's kind, on the object or the request's subresource). */
async function mayChange(admin: KubeClient, user: UserRef, ev: StoreEvent, subresource: string): Promise<boolean> {
  const k = keyParts(ev.key);
  const groups = STORED_ALIASES[`${k.group}/${k.resource}`] ?? [k.group];
  const namespace = k.group === '' && k.resource === 'namespaces' ? k.name : k.namespace;
  for (const group of groups) {
    for (const verb of VERBS_FOR[ev.type]) {
      for (const sub of new Set(['', subresource])) {
        const review = await admin.request<{ status?: { allowed?: boolean } }>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: { user: user.username, groups: user.groups, resourceAttributes: { verb, group, resource: k.resource, subresource: sub, namespace, name: k.name } },
        });
        if (review.status?.allowed === true) return true;
      }
    }
  }
  return false;
}

function describeEvent(ev: StoreEvent): string {
  return `${ev.type} ${ev.key}@${ev.revision}`;
}

export interface AuditInput {
  method: string;
  path: string;
  query: string;
  /** HTTP status, undefined without an answer. */
  status: number | undefined;
  user: UserRef;
  superuser: boolean;
  events: StoreEvent[];
}

/**
 * kube-apiserver stores nothing above etcd's request limit (1.5 MiB); objects written by the server
 * itself may carry a little more metadata than the request did.
 */
const MAX_STORED_OBJECT_BYTES = 1.5 * 1024 * 1024 + 64 * 1024;

/** The store-side violations of one request. */
export async function auditWrites(admin: KubeClient, store: Pick<Store, 'get'>, a: AuditInput): Promise<Violation[]> {
  const oversized: Violation[] = a.events
    .filter((ev) => ev.type !== 'DELETED')
    .map((ev) => ({ ev, bytes: Buffer.byteLength(JSON.stringify(ev.object)) }))
    .filter((x) => x.bytes > MAX_STORED_OBJECT_BYTES)
    .map((x) => ({ kind: 'oversized-object-stored', detail: `${describeEvent(x.ev)} stored ${x.bytes} bytes (limit ${MAX_STORED_OBJECT_BYTES})` }));
  const writes = a.events.filter((ev) => !isControllerWrite(ev, store));
  if (writes.length === 0) return oversized;
  return [...oversized, ...await auditChanges(admin, a, writes)];
}

async function auditChanges(admin: KubeClient, a: AuditInput, writes: StoreEvent[]): Promise<Violation[]> {
  const list = writes.slice(0, 5).map(describeEvent).join(', ') + (writes.length > 5 ? `, … (${writes.length})` : '');
  const target = requestTarget(a.path, a.query);
  const method = a.method.toUpperCase();
  if (a.status === undefined || a.status >= 400) return [{ kind: 'write-on-error', detail: `${a.status ?? 'no answer'} yet the store changed: ${list}` }];
  if (method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return [{ kind: 'write-on-read', detail: `${method} changed the store: ${list}` }];
  if (/(^|&)dryRun=All(&|$)/.test(a.query)) return [{ kind: 'write-on-dry-run', detail: `dryRun=All changed the store: ${list}` }];
  if (a.superuser) return [];
  const out: Violation[] = [];
  for (const ev of writes) {
    if (!(await mayChange(admin, a.user, ev, target.subresource))) {
      out.push({ kind: 'write-beyond-rights', detail: `${a.user.username} may not ${ev.type === 'ADDED' ? 'create' : ev.type === 'DELETED' ? 'delete' : 'modify'} ${ev.key}, yet ${describeEvent(ev)}` });
    }
  }
  return out;
}
