// managedFields of ordinary writes: a create, an update and a patch each record an Update entry for
// their manager (the fieldManager parameter, else the User-Agent's first segment), a status write
// records one for the status subresource, and a server-side apply that changes a field another
// manager updated conflicts with it. The entries themselves are compared (times aside); managers
// are named in the order they write, so that entries written within one second sort alike.
import type { Step } from '../types.js';
import { get, patch, post, put, saveMeta } from './build.js';

const NS = 'diff-crd';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const CM = `${CMS}/diff-mf`;
const WIDGET = `/apis/diff.example.com/v1/namespaces/${NS}/widgets/diff-mf-widget`;

const cm = (data: Record<string, string>, meta: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'diff-mf', namespace: NS, labels: { owner: 'm1' }, ...meta }, data,
});

const mf = { managedFields: true };

export function managedFieldsSteps(): Step[] {
  return [
    post('managedFields: create by a named manager', `${CMS}?fieldManager=diff-m1-create`, cm({ a: '1', b: '1' }), { ...mf, save: saveMeta('mf_rv') }),
    put('managedFields: update by another manager', `${CM}?fieldManager=diff-m2-update`, undefined, {
      ...mf, bodyFrom: (v) => cm({ a: '2', b: '1' }, { resourceVersion: v.mf_rv }),
    }),
    patch('managedFields: merge patch named by the User-Agent', CM, 'merge', { data: { c: '3' } }, { ...mf, headers: { 'user-agent': 'diff-m3-agent/9.9 (linux/amd64) test' } }),
    patch('managedFields: strategic merge patch that removes a field', `${CM}?fieldManager=diff-m4-patch`, 'strategic', { data: { b: null } }, mf),
    patch('managedFields: apply over an updated field (conflict)', `${CM}?fieldManager=diff-m5-apply`, 'apply', cm({ a: '5' })),
    patch('managedFields: apply over an updated field with force', `${CM}?fieldManager=diff-m5-apply&force=true`, 'apply', cm({ a: '5' }), mf),
    put('managedFields: update that changes nothing keeps the entries', `${CM}?fieldManager=diff-m6-noop`, undefined, {
      ...mf, bodyFrom: () => cm({ a: '5', c: '3' }),
    }),
    patch('managedFields: reset with an empty list', `${CM}?fieldManager=diff-m7-reset`, 'merge', { metadata: { managedFields: [{}] } }, mf),
    post('managedFields: widget created', `/apis/diff.example.com/v1/namespaces/${NS}/widgets?fieldManager=diff-w1-create`, {
      apiVersion: 'diff.example.com/v1', kind: 'Widget', metadata: { name: 'diff-mf-widget', namespace: NS }, spec: { size: 1 }, status: { phase: 'Ignored' },
    }, mf),
    patch('managedFields: widget status patched', `${WIDGET}/status?fieldManager=diff-w2-status`, 'merge', { status: { phase: 'Ready' }, spec: { size: 2 } }, mf),
    patch('managedFields: apply to the status another manager set (conflict)', `${WIDGET}/status?fieldManager=diff-w3-apply`, 'apply', {
      apiVersion: 'diff.example.com/v1', kind: 'Widget', metadata: { name: 'diff-mf-widget', namespace: NS }, status: { phase: 'Done' },
    }),
    get('managedFields: widget after the writes', WIDGET, mf),
    post('managedFields: an unprintable fieldManager (Invalid)', `${CMS}?fieldManager=bad%07manager`, cm({ a: '1' }, { name: 'diff-mf-bad' })),
  ];
}
