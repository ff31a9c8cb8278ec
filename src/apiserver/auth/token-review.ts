// authentication.k8s.io/v1 TokenReview: the server's own bearer-token authentication offered to
// its clients (a gRPC front end such as the hub's CloudEvents server asks who a token is, as it
// would ask kube-apiserver). Create-only, never stored; audiences are not checked.

import type { KubeObject } from '../../api/meta.js';
import type { VirtualResource } from '../registry/types.js';
import type { Authenticator } from '../pipeline.js';

const GROUP = 'authentication.k8s.io';

/** The review of `body.spec.token` by `authenticator`: authenticated with the user, or not with the reason. */
function reviewToken(body: KubeObject, authenticator: Authenticator): KubeObject {
  const spec = (typeof body.spec === 'object' && body.spec !== null ? body.spec : {}) as { token?: unknown };
  const token = typeof spec.token === 'string' ? spec.token : '';
  const r = token === '' ? undefined : authenticator.authenticate({ headers: { authorization: `Bearer ${token}` } });
  const status = r?.kind === 'user'
    ? { authenticated: true, user: { username: r.user.username, ...(r.user.uid ? { uid: r.user.uid } : {}), groups: [...r.user.groups], ...(r.user.extra ? { extra: r.user.extra } : {}) } }
    : { authenticated: false, user: {}, error: r?.kind === 'unauthorized' ? r.why : 'no token' };
  return {
    apiVersion: `${GROUP}/v1`,
    kind: 'TokenReview',
    metadata: { ...(body.metadata ?? {}), creationTimestamp: null } as unknown as KubeObject['metadata'],
    spec: { ...spec, token },
    status,
  };
}

export function tokenReviewResource(authenticator: Authenticator): VirtualResource {
  return {
    def: {
      group: GROUP, versions: ['v1'], storageVersion: 'v1', resource: 'tokenreviews', kind: 'TokenReview', listKind: 'TokenReviewList',
      singular: 'tokenreview', shortNames: [], categories: [], namespaced: false, subresources: [], verbs: ['create'],
    },
    create: (obj) => reviewToken(obj, authenticator),
  };
}
