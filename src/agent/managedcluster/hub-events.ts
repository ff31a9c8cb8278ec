// Hub availability events: after a status patch, an
// events.k8s.io/v1 Event is written on the hub only when ManagedClusterConditionAvailable changed
// status (or appeared). Pure decision; the controller hands the result to an EventRecorder whose
// reportingController is `klusterlet-agent`.

import type { ManagedCluster } from '../../api/cluster.js';
import { findCondition } from '../../api/conditions.js';
import { conditionTypes } from '../../api/constants.js';
import type { EventType } from '../../client/types.js';

export const HUB_EVENT_REPORTER = 'klusterlet-agent';

export interface AvailabilityEvent {
  type: EventType;
  reason: 'Available' | 'Unavailable';
  note: string;
}

export function availabilityEvent(old: ManagedCluster, next: ManagedCluster, clusterName: string): AvailabilityEvent | undefined {
  const now = findCondition(next.status?.conditions, conditionTypes.available);
  if (!now) return undefined;
  const before = findCondition(old.status?.conditions, conditionTypes.available);
  if (before && before.status === now.status) return undefined;
  if (now.status === 'True') {
    return {
      type: 'Normal',
      reason: 'Available',
      note: `The ${clusterName} is successfully imported, and it is managed by the hub cluster. Its apieserver is available`,
    };
  }
  if (now.status === 'False') {
    return { type: 'Warning', reason: 'Unavailable', note: `The ${clusterName} is successfully imported. However, its Kube API server is unavailable` };
  }
  return undefined;
}
