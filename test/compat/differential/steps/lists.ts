// Label and field selectors, limit/continue paging, and watches: resumed from a resourceVersion,
// from a compacted one, with bookmarks and with initial events.
import type { HttpAnswer, Step } from '../types.js';
import { del, field, get, itemNames, patch, post, rootCaPublished, saveMeta, str, watch } from './build.js';

const NS = 'diff-list';
const CMS = `/api/v1/namespaces/${NS}/configmaps`;
const cm = (name: string, tier: string | undefined): unknown => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(tier ? { labels: { tier, diff: 'list' } } : { labels: { diff: 'list' } }) },
  data: { name },
});
const q = (s: string): string => encodeURIComponent(s);
const names = { normalise: itemNames };
const saveContinue = { save: { cont: (a: HttpAnswer) => str(a.body, 'metadata.continue') } };

export function listSteps(): Step[] {
  return [
    post('list: namespace', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }),
    rootCaPublished('list: namespace root CA published', NS),
    ...['a', 'b', 'a', 'c', undefined].map((tier, i) => post(`list: create cm-${i}`, CMS, cm(`cm-${i}`, tier))),
    get('list: label equality', `${CMS}?labelSelector=${q('tier=a')}`),
    get('list: label inequality', `${CMS}?labelSelector=${q('diff=list,tier!=a')}`, names),
    get('list: label set', `${CMS}?labelSelector=${q('tier in (b,c)')}`, names),
    get('list: label absence', `${CMS}?labelSelector=${q('diff,!tier')}`, names),
    get('list: label existence', `${CMS}?labelSelector=tier`, names),
    get('list: invalid label selector (BadRequest)', `${CMS}?labelSelector=${q('tier in a')}`),
    get('list: field selector by name', `${CMS}?fieldSelector=${q('metadata.name=cm-2')}`, names),
    get('list: field selector by name, negated', `${CMS}?fieldSelector=${q('metadata.name!=cm-2')}&labelSelector=diff`, names),
    get('list: unsupported field selector (BadRequest)', `${CMS}?fieldSelector=${q('data.name=cm-1')}`),
    get('list: field selector across namespaces', `/api/v1/configmaps?fieldSelector=${q(`metadata.namespace=${NS}`)}&labelSelector=diff`, names),
    get('list: page 1', `${CMS}?labelSelector=diff&limit=2`, saveContinue),
    get('list: page 2', `${CMS}?labelSelector=diff&limit=2&continue={cont}`, saveContinue),
    get('list: page 3 (last)', `${CMS}?labelSelector=diff&limit=2&continue={cont}`),
    get('list: invalid continue token (BadRequest)', `${CMS}?limit=2&continue=not-a-token`),
    get('list: resourceVersion=0', `${CMS}?labelSelector=diff&resourceVersion=0`, names),
    get('list: resourceVersionMatch without resourceVersion (Invalid)', `${CMS}?resourceVersionMatch=Exact`),
    get('list: for watch start', `${CMS}?labelSelector=diff`, { save: saveMeta('list_rv') }),
    post('list: create cm-5', CMS, cm('cm-5', 'b')),
    patch('list: change cm-1', `${CMS}/cm-1`, 'merge', { data: { changed: 'yes' } }),
    del('list: delete cm-2', `${CMS}/cm-2`),
    watch('watch: resume from a resourceVersion', `${CMS}?watch=1&resourceVersion={list_rv}`, 3),
    watch('watch: resume with a label selector', `${CMS}?watch=1&resourceVersion={list_rv}&labelSelector=${q('tier=b')}`, 3, 1500),
    watch('watch: resume with a field selector', `${CMS}?watch=1&resourceVersion={list_rv}&fieldSelector=${q('metadata.name=cm-1')}`, 3, 1500),
    watch('watch: resourceVersion=0 starts with the current objects', `${CMS}?watch=1&resourceVersion=0`, 5, 1500, { normalise: eventNames }),
    watch('watch: initial events and their end bookmark', `${CMS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, 6, 3000, {
      normalise: eventNames,
    }),
    watch('watch: bookmarks allowed, nothing happens', `${CMS}?watch=1&resourceVersion={list_rv}&allowWatchBookmarks=true&labelSelector=none`, 2, 1500),
    watch('watch: too old resourceVersion (Expired)', `${CMS}?watch=1&resourceVersion=2`, 1, 3000),
    get('list: too old resourceVersion with Exact match', `${CMS}?resourceVersion=2&resourceVersionMatch=Exact`),
    watch('watch: with timeoutSeconds ends by itself', `${CMS}?watch=1&resourceVersion={list_rv}&timeoutSeconds=1&labelSelector=none`, 5, 4000),
  ];
}

/** Event types and object names (and the bookmark's annotations), for watches whose objects are listed elsewhere. */
function eventNames(n: { status: number; body: unknown; events?: unknown[] }): { status: number; body: unknown; events?: unknown[] } {
  return {
    status: n.status,
    body: n.body,
    events: (n.events ?? []).map((e) => {
      const type = str(e, 'type');
      return type === 'BOOKMARK' ? { type, annotations: field(e, 'object.metadata.annotations') } : `${String(type)} ${String(str(e, 'object.metadata.name'))}`;
    }),
  };
}
