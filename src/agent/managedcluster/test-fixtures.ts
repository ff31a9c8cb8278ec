// Builders for ManagedCluster fixtures and a recording StatusContext, shared by the reconciler
// table tests (and the controller tests under test/agent/controllers).

import type { ManagedCluster } from '../../api/cluster.js';
import type { Condition } from '../../api/meta.js';
import { conditionTypes, reasons } from '../../api/constants.js';
import type { StatusContext } from './reconciler.js';

const TEST_CLUSTER = 'testmanagedcluster';

export function newCluster(conditions: Condition[] = [], name = TEST_CLUSTER): ManagedCluster {
  return {
    apiVersion: 'cluster.open-cluster-management.io/v1',
    kind: 'ManagedCluster',
    metadata: { name, uid: 'uid-1', resourceVersion: '1' },
    spec: { hubAcceptsClient: true },
    status: { conditions },
  };
}

export const acceptedCondition: Condition = {
  type: conditionTypes.hubAccepted,
  status: 'True',
  reason: reasons.hubClusterAdminAccepted,
  message: 'Accepted by hub cluster admin',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

export const joinedCondition: Condition = {
  type: conditionTypes.joined,
  status: 'True',
  reason: reasons.managedClusterJoined,
  message: 'Managed cluster joined',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

export const availableCondition: Condition = {
  type: conditionTypes.available,
  status: 'True',
  reason: reasons.managedClusterAvailable,
  message: 'Managed cluster is available',
  lastTransitionTime: '2026-01-01T00:00:00Z',
};

export function newAcceptedCluster(): ManagedCluster {
  return newCluster([acceptedCondition]);
}

export function newJoinedCluster(): ManagedCluster {
  return newCluster([acceptedCondition, joinedCondition]);
}

export interface RecordingContext extends StatusContext {
  readonly events: { reason: string; message: string }[];
  readonly requeues: number[];
}

export function recordingContext(now = new Date('2026-06-01T00:00:00Z'), clusterName = TEST_CLUSTER): RecordingContext {
  const events: { reason: string; message: string }[] = [];
  const requeues: number[] = [];
  return {
    clusterName,
    signal: new AbortController().signal,
    now,
    events,
    requeues,
    event: (reason, message) => events.push({ reason, message }),
    requeueAfter: (ms) => requeues.push(ms),
  };
}
