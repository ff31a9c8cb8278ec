// Deletion over time: finalizers hold an object, a namespace takes its contents with it, and the
// garbage collector follows ownerReferences with Background, Foreground and Orphan propagation.
import type { HttpAnswer, Step } from '../types.js';
import { del, field, get, only, patch, post, saveMeta, until404 } from './build.js';

const NS = 'diff-life';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const cm = (name: string, extra: Record<string, unknown> = {}): unknown => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ...extra } });
const owned = (name: string, ownerUidVar: string, ownerName: string, blockOwnerDeletion = false) => (v: Record<string, string>): unknown =>
  cm(name, { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: ownerName, uid: v[ownerUidVar], ...(blockOwnerDeletion ? { blockOwnerDeletion: true } : {}) }] });
const deleteBody = (propagationPolicy: string): unknown => ({ apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy });
const noOwners = (a: HttpAnswer): boolean => field(a.body, 'metadata.ownerReferences') === undefined;
const lifecycleFields = only('metadata.name', 'metadata.finalizers', 'metadata.deletionTimestamp', 'metadata.ownerReferences', 'status.phase', 'spec.finalizers', 'kind', 'reason', 'code');

export function lifecycleSteps(): Step[] {
  const gc = (policy: 'Background' | 'Foreground' | 'Orphan'): Step[] => {
    const owner = `owner-${policy.toLowerCase()}`;
    const child = `child-${policy.toLowerCase()}`;
    return [
      post(`gc ${policy}: owner`, CMS, cm(owner), { save: saveMeta(`${owner}_uid`, 'uid') }),
      post(`gc ${policy}: dependent`, CMS, undefined, { bodyFrom: owned(child, `${owner}_uid`, owner, policy === 'Foreground') }),
      { ...del(`gc ${policy}: delete the owner`, `${CMS}/${owner}`), body: deleteBody(policy), normalise: lifecycleFields },
      ...(policy === 'Orphan'
        ? [
            get(`gc ${policy}: owner gone`, `${CMS}/${owner}`, until404),
            get(`gc ${policy}: dependent kept, without its ownerReference`, `${CMS}/${child}`, { until: noOwners, timeoutMs: 30_000, normalise: lifecycleFields }),
          ]
        : [get(`gc ${policy}: dependent gone`, `${CMS}/${child}`, until404), get(`gc ${policy}: owner gone`, `${CMS}/${owner}`, until404)]),
    ];
  };
  return [
    post('life: namespace', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }),
    post('finalizer: create held object', CMS, cm('held', { finalizers: ['diff.example.com/hold'] })),
    del('finalizer: delete returns the object being deleted', `${CMS}/held`, { normalise: lifecycleFields }),
    get('finalizer: still there with a deletionTimestamp', `${CMS}/held`, { normalise: lifecycleFields }),
    patch('finalizer: cannot add a finalizer while deleting', `${CMS}/held`, 'merge', { metadata: { finalizers: ['diff.example.com/hold', 'diff.example.com/late'] } }),
    patch('finalizer: remove it', `${CMS}/held`, 'merge', { metadata: { finalizers: null } }, { normalise: lifecycleFields }),
    get('finalizer: gone once released', `${CMS}/held`, until404),
    ...gc('Background'),
    ...gc('Foreground'),
    ...gc('Orphan'),
    post('gc: dependent of an owner that never existed', CMS, cm('dangling', { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ghost', uid: '00000000-0000-0000-0000-000000000001' }] })),
    get('gc: dependent of an owner that never existed is collected', `${CMS}/dangling`, until404),
    post('namespace deletion: namespace', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'diff-gone' } }),
    // A finalizer keeps the namespace Terminating on both servers until it is released.
    post('namespace deletion: content', '/api/v1/namespaces/diff-gone/configmaps', cm('content', { finalizers: ['diff.example.com/hold'] })),
    post('namespace deletion: more content', '/api/v1/namespaces/diff-gone/secrets', { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'content' }, stringData: { a: 'b' } }),
    del('namespace deletion: delete answers Terminating', '/api/v1/namespaces/diff-gone', { normalise: lifecycleFields }),
    post('namespace deletion: no new content while Terminating (Forbidden)', '/api/v1/namespaces/diff-gone/configmaps', cm('late')),
    get('namespace deletion: Terminating while content is held', '/api/v1/namespaces/diff-gone', {
      until: (a) => JSON.stringify(field(a.body, 'status.conditions') ?? []).includes('NamespaceFinalizersRemaining'),
      timeoutMs: 30_000,
      normalise: only('metadata.name', 'status.phase', 'spec.finalizers'),
    }),
    get('namespace deletion: other content gone', '/api/v1/namespaces/diff-gone/secrets/content', until404),
    patch('namespace deletion: release the held content', '/api/v1/namespaces/diff-gone/configmaps/content', 'merge', { metadata: { finalizers: null } }, { normalise: lifecycleFields }),
    get('namespace deletion: namespace gone', '/api/v1/namespaces/diff-gone', until404),
    get('namespace deletion: content gone', '/api/v1/namespaces/diff-gone/configmaps/content'),
    get('namespace deletion: kube-system cannot be deleted', '/api/v1/namespaces/kube-system', { normalise: only('metadata.name', 'status.phase') }),
    del('namespace deletion: deleting kube-system is Forbidden', '/api/v1/namespaces/kube-system'),
  ];
}
