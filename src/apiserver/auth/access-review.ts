// Review APIs of authorization.k8s.io/v1: SubjectAccessReview,
// SelfSubjectAccessReview, LocalSubjectAccessReview and SelfSubjectRulesReview, plus
// authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`). Create-only, never stored;
// the answer is the request with `status` filled, from the same chain as real requests. The
// requester is the identity the request runs as, so impersonation applies to the self reviews.

import type { KubeObject } from '../../api/meta.js';
import { errors, fieldErrors, type FieldError } from '../http/errors.js';
import type { Authorizer, RequestAttributes, ResourceDef, UserInfo } from '../pipeline.js';
import type { VirtualResource } from '../registry/types.js';
import type { RbacAuthorizer } from './rbac-authorizer.js';
import { MASTERS_GROUP } from './rbac-authorizer.js';

const AUTHZ_GROUP = 'authorization.k8s.io';
const AUTHN_GROUP = 'authentication.k8s.io';

export type AccessReviewKind = 'SubjectAccessReview' | 'SelfSubjectAccessReview' | 'LocalSubjectAccessReview';

interface ResourceAttributes {
  namespace?: string;
  verb?: string;
  group?: string;
  version?: string;
  resource?: string;
  subresource?: string;
  name?: string;
}
interface NonResourceAttributes {
  path?: string;
  verb?: string;
}
interface ReviewSpec {
  resourceAttributes?: ResourceAttributes;
  nonResourceAttributes?: NonResourceAttributes;
  user?: string;
  groups?: string[];
  uid?: string;
  extra?: Record<string, string[]>;
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** Request attributes a review spec describes, for `user`. */
function reviewAttributes(spec: ReviewSpec, user: UserInfo): RequestAttributes {
  const ra = spec.resourceAttributes;
  if (ra) {
    return {
      user,
      verb: str(ra.verb),
      resourceRequest: true,
      path: '',
      apiGroup: str(ra.group),
      apiVersion: str(ra.version),
      resource: str(ra.resource),
      subresource: str(ra.subresource),
      namespace: str(ra.namespace),
      name: str(ra.name),
    };
  }
  const na = spec.nonResourceAttributes ?? {};
  return { user, verb: str(na.verb), resourceRequest: false, path: str(na.path), apiGroup: '', apiVersion: '', resource: '', subresource: '', namespace: '', name: '' };
}

function invalid(kind: string, causes: FieldError[]): never {
  throw errors.invalid(kind, AUTHZ_GROUP, '', causes);
}

/**
 * Answers one review. `namespace` is the URL namespace (LocalSubjectAccessReview only).
 * Throws an ApiError (422 / 400) for a malformed request.
 */
export function handleAccessReview(kind: AccessReviewKind, body: KubeObject, requester: UserInfo, authorizer: Authorizer, namespace = ''): KubeObject {
  const spec = (typeof body.spec === 'object' && body.spec !== null ? body.spec : {}) as ReviewSpec;
  const hasRes = spec.resourceAttributes !== undefined && spec.resourceAttributes !== null;
  const hasNonRes = spec.nonResourceAttributes !== undefined && spec.nonResourceAttributes !== null;
  if (hasRes === hasNonRes) {
    invalid(kind, [fieldErrors.invalid('spec.resourceAttributes', hasRes ? 'set' : null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified')]);
  }
  let user: UserInfo;
  if (kind === 'SelfSubjectAccessReview') {
    user = requester;
  } else {
    const groups = Array.isArray(spec.groups) ? spec.groups.filter((g): g is string => typeof g === 'string') : [];
    if (!str(spec.user) && groups.length === 0) {
      invalid(kind, [fieldErrors.invalid('spec.user', '', 'at least one of user or group must be specified')]);
    }
    user = { username: str(spec.user), groups, ...(spec.uid ? { uid: spec.uid } : {}), ...(spec.extra ? { extra: spec.extra } : {}) };
  }
  if (kind === 'LocalSubjectAccessReview') {
    if (hasNonRes) invalid(kind, [fieldErrors.invalid('spec.nonResourceAttributes', 'set', 'disallowed on this kind of request')]);
    if (str(spec.resourceAttributes?.namespace) !== namespace) {
      throw errors.badRequest(`spec.resourceAttributes.namespace must match namespace: ${namespace}`);
    }
  }
  const attrs = reviewAttributes(spec, user);
  const d = authorizer.authorize(attrs);
  const status: Record<string, unknown> = { allowed: d.decision === 'allow' };
  if (d.decision === 'deny') status.denied = true;
  if (d.reason) status.reason = d.reason;
  const metadata = { ...(body.metadata ?? {}), creationTimestamp: null } as unknown as KubeObject['metadata'];
  if (kind === 'LocalSubjectAccessReview') metadata.namespace = namespace;
  return { apiVersion: `${AUTHZ_GROUP}/v1`, kind, metadata, spec, status };
}

/** SelfSubjectRulesReview: the requester's rules in `spec.namespace`. */
function handleSelfSubjectRulesReview(body: KubeObject, requester: UserInfo, authorizer: RbacAuthorizer): KubeObject {
  const spec = (typeof body.spec === 'object' && body.spec !== null ? body.spec : {}) as { namespace?: string };
  const masters = requester.groups.includes(MASTERS_GROUP);
  const rules = masters
    ? [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }]
    : authorizer.index.rulesFor(requester, str(spec.namespace));
  const resourceRules = rules
    .filter((r) => !r.nonResourceURLs || r.nonResourceURLs.length === 0)
    .map((r) => ({ verbs: r.verbs ?? [], apiGroups: r.apiGroups ?? [], resources: r.resources ?? [], ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}) }));
  const nonResourceRules = rules.filter((r) => r.nonResourceURLs && r.nonResourceURLs.length > 0).map((r) => ({ verbs: r.verbs ?? [], nonResourceURLs: r.nonResourceURLs ?? [] }));
  return {
    apiVersion: `${AUTHZ_GROUP}/v1`,
    kind: 'SelfSubjectRulesReview',
    metadata: { ...(body.metadata ?? {}), creationTimestamp: null } as unknown as KubeObject['metadata'],
    spec,
    status: { resourceRules, nonResourceRules, incomplete: false },
  };
}

/** SelfSubjectReview: who the server takes the requester for. */
export function handleSelfSubjectReview(body: KubeObject, requester: UserInfo, now: Date = new Date()): KubeObject {
  const userInfo = {
    username: requester.username,
    ...(requester.uid ? { uid: requester.uid } : {}),
    groups: [...requester.groups],
    ...(requester.extra && Object.keys(requester.extra).length > 0 ? { extra: requester.extra } : {}),
  };
  return {
    apiVersion: `${AUTHN_GROUP}/v1`,
    kind: 'SelfSubjectReview',
    // kube-apiserver stamps the review with the time it answered (the access reviews keep null).
    metadata: { ...(body.metadata ?? {}), creationTimestamp: now.toISOString().replace(/\.\d+Z$/, 'Z') } as unknown as KubeObject['metadata'],
    status: { userInfo },
  };
}

function reviewDef(kind: string, resource: string, namespaced: boolean, group = AUTHZ_GROUP): ResourceDef {
  return {
    group,
    versions: ['v1'],
    storageVersion: 'v1',
    resource,
    kind,
    listKind: `${kind}List`,
    singular: kind.toLowerCase(),
    shortNames: [],
    categories: [],
    namespaced,
    subresources: [],
    verbs: ['create'],
  };
}

/**
 * The review resources as create-only virtual resources for the registry. SelfSubjectRulesReview
 * needs the RBAC index, so it is included only when `authorizer` exposes one.
 */
export function accessReviewResources(authorizer?: RbacAuthorizer): VirtualResource[] {
  const review = (kind: AccessReviewKind, resource: string, namespaced: boolean): VirtualResource => ({
    def: reviewDef(kind, resource, namespaced),
    create: (obj, ctx) => handleAccessReview(kind, obj, ctx.user, ctx.authorizer, ctx.namespace),
  });
  const out: VirtualResource[] = [
    review('SubjectAccessReview', 'subjectaccessreviews', false),
    review('SelfSubjectAccessReview', 'selfsubjectaccessreviews', false),
    review('LocalSubjectAccessReview', 'localsubjectaccessreviews', true),
    { def: reviewDef('SelfSubjectReview', 'selfsubjectreviews', false, AUTHN_GROUP), create: (obj, ctx) => handleSelfSubjectReview(obj, ctx.user) },
  ];
  if (authorizer) {
    out.push({
      def: reviewDef('SelfSubjectRulesReview', 'selfsubjectrulesreviews', false),
      create: (obj, ctx) => handleSelfSubjectRulesReview(obj, ctx.user, authorizer),
    });
  }
  return out;
}
