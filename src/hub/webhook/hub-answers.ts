// What the webhook asks the hub's API server while it admits a request, as OCM's webhook does:
// a SubjectAccessReview per authorization check (for the requester, with their groups and extra)
// and a GET of the cluster's namespace. Failures are thrown; the rules refuse with their message.

import type { AuthorizationCheck } from '../../api/admission/managed-cluster-validating.js';
import type { Namespace, SubjectAccessReview } from '../../api/core.js';
import { isNotFound } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import type { ReviewAnswers } from './review-handlers.js';

const SAR_PATH = '/apis/authorization.k8s.io/v1/subjectaccessreviews';

function accessReviewFor(check: AuthorizationCheck): SubjectAccessReview {
  const { user } = check;
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: {
      user: user.username,
      ...(user.uid !== undefined ? { uid: user.uid } : {}),
      groups: user.groups,
      ...(user.extra !== undefined ? { extra: user.extra } : {}),
      resourceAttributes: { group: check.group, resource: check.resource, subresource: check.subresource, verb: check.verb, name: check.name },
    },
  };
}

/** Answers bound to one review: every call made with `signal`, so a review never outlives its deadline. */
export function hubAnswers(client: KubeClient, signal: AbortSignal): ReviewAnswers {
  const namespaces = client.resource<Namespace>(resourceTypes.namespaces);
  return {
    async authorize(check) {
      const review = await client.request<SubjectAccessReview>('POST', SAR_PATH, accessReviewFor(check), { signal });
      return review.status?.allowed === true;
    },
    async namespacePhase(name) {
      if (name === '') return undefined;
      try {
        const ns = await namespaces.get(name, { signal });
        return ns.status?.phase;
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
  };
}
