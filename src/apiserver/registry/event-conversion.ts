// events.k8s.io/v1 Events share storage with core/v1 Events, as on kube-apiserver; the stored form
// is core/v1.

import type { KubeObject } from '../../api/meta.js';

const PAIRS: [core: string, events: string][] = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['reportingComponent', 'reportingController'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
];

function rename(obj: KubeObject, from: 0 | 1, apiVersion: string): KubeObject {
  const to = from === 0 ? 1 : 0;
  const out: KubeObject = { ...obj, apiVersion, kind: 'Event' };
  for (const pair of PAIRS) {
    const src = pair[from];
    const dst = pair[to];
    if (src in obj) {
      out[dst] = obj[src];
      delete out[src];
    }
  }
  return out;
}

/** core/v1 stored form → events.k8s.io/v1 wire form. */
export function coreToEventsV1(obj: KubeObject): KubeObject {
  return rename(obj, 0, 'events.k8s.io/v1');
}

/** events.k8s.io/v1 wire form → core/v1 stored form. */
export function eventsV1ToCore(obj: KubeObject): KubeObject {
  return rename(obj, 1, 'v1');
}

/** core/v1 wire form: kube-apiserver always writes these fields (Go zero values), even when unset. */
export function coreEventWire(obj: KubeObject): KubeObject {
  return { eventTime: null, firstTimestamp: null, lastTimestamp: null, reportingComponent: '', reportingInstance: '', ...obj, apiVersion: 'v1', kind: 'Event' };
}
