// MultipleHubs candidate validity: with the candidate's credentials, the
// agent must be allowed to create/get ManagedClusters and create/get/list/watch CSRs
// (SelfSubjectAccessReviews, in order, stopping at the first refusal), and the hub must not have
// refused the cluster (`spec.hubAcceptsClient` false on an existing ManagedCluster).

import type { ManagedCluster } from '../../api/cluster.js';
import { isNotFound } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import { errorMessage } from '../../util/errors.js';

interface SelfSubjectAccessReview {
  apiVersion: string;
  kind: string;
  metadata: Record<string, unknown>;
  spec: { resourceAttributes: { group: string; resource: string; verb: string } };
  status?: { allowed: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

const REQUIRED_ACCESS: readonly { group: string; resource: string; verb: string }[] = [
  { group: 'cluster.open-cluster-management.io', resource: 'managedclusters', verb: 'create' },
  { group: 'cluster.open-cluster-management.io', resource: 'managedclusters', verb: 'get' },
  { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create' },
  { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'get' },
  { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'list' },
  { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'watch' },
];

/** Resolves when the candidate's client may bootstrap `clusterName`; rejects with OCM's messages. */
export async function checkBootstrapCandidate(client: KubeClient, clusterName: string, signal: AbortSignal): Promise<void> {
  for (const attrs of REQUIRED_ACCESS) {
    const review: SelfSubjectAccessReview = {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      metadata: {},
      spec: { resourceAttributes: attrs },
    };
    let answer: SelfSubjectAccessReview;
    try {
      answer = await client.request<SelfSubjectAccessReview>('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', review, { signal });
    } catch (err) {
      throw new Error(`failed to create self subject access reviews: ${errorMessage(err)}`, { cause: err });
    }
    if (!answer?.status?.allowed) throw new Error(`failed to create self subject access reviews: ${JSON.stringify(answer)}`);
  }
  let cluster: ManagedCluster;
  try {
    cluster = await client.resource<ManagedCluster>(resourceTypes.managedClusters).get(clusterName, { signal });
  } catch (err) {
    if (isNotFound(err)) return;
    throw new Error(`failed to get managed cluster: ${errorMessage(err)}`, { cause: err });
  }
  if (!cluster.spec?.hubAcceptsClient) throw new Error('hub does not accept client');
}
