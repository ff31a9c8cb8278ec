// Impersonation, as kube-apiserver does it: the `Impersonate-User`, `Impersonate-Group`
// (repeatable), `Impersonate-Uid` and `Impersonate-Extra-<key>` headers let an authenticated
// requester act as another identity. Each part asked for is authorised separately with the verb
// `impersonate`; the request then runs as the identity built from the headers, never as a mix of
// both. Header parsing and the resulting identity are pure functions; `actAs` adds the authorizer.

import { isDns1123Label, isDns1123Subdomain } from '../../api/name-rules.js';
import { errors } from '../http/errors.js';
import type { Authorizer, RequestAttributes, UserInfo } from '../pipeline.js';
import { ANONYMOUS_USER, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP } from './authenticator.js';
import { forbiddenError } from './forbidden.js';
import { serviceAccountUsername } from './rbac-rules.js';

const USER_HEADER = 'impersonate-user';
const GROUP_HEADER = 'impersonate-group';
const UID_HEADER = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const AUTHN_GROUP = 'authentication.k8s.io';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';

/** One thing a request asks to impersonate; each is authorised on its own. */
export type ImpersonationTarget =
  | { kind: 'User'; name: string }
  | { kind: 'ServiceAccount'; namespace: string; name: string }
  | { kind: 'Group'; name: string }
  | { kind: 'UserExtra'; key: string; value: string }
  | { kind: 'UID'; uid: string };

/** Request headers with every value kept apart (Node's `headersDistinct`; names in lower case). */
export type DistinctHeaders = Record<string, string[] | undefined>;

/** `system:serviceaccount:<ns>:<name>` with a valid namespace and name, else undefined. */
export function splitServiceAccountUsername(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts as [string, string];
  if (!isDns1123Label(namespace)) return undefined;
  if (!isDns1123Subdomain(name)) return undefined;
  return { namespace, name };
}

/** Extra keys travel percent-encoded in header names; a malformed encoding is kept as sent. */
function decodeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** How kube-apiserver prints the references in its "without impersonating a user" error. */
function describeTarget(t: ImpersonationTarget): string {
  const fields = (kind: string, namespace: string, name: string, apiVersion: string, fieldPath: string): string =>
    `{${[kind, namespace, name, '', apiVersion, '', fieldPath].join(' ')}}`;
  switch (t.kind) {
    case 'User': return fields('User', '', t.name, '', '');
    case 'ServiceAccount': return fields('ServiceAccount', t.namespace, t.name, '', '');
    case 'Group': return fields('Group', '', t.name, '', '');
    case 'UserExtra': return fields('UserExtra', '', t.value, `${AUTHN_GROUP}/v1`, t.key);
    case 'UID': return fields('UID', '', t.uid, `${AUTHN_GROUP}/v1`, '');
  }
}

/**
 * The impersonation the headers ask for, in the order they are authorised: the user (or service
 * account), groups, extras, uid. Empty when there is none. Groups, extras or a uid without a user
 * are a 400, since they would otherwise be attached to the requester's own name.
 */
export function parseImpersonationHeaders(headers: DistinctHeaders): ImpersonationTarget[] {
  const out: ImpersonationTarget[] = [];
  const user = headers[USER_HEADER]?.[0] ?? '';
  if (user !== '') {
    const sa = splitServiceAccountUsername(user);
    out.push(sa ? { kind: 'ServiceAccount', ...sa } : { kind: 'User', name: user });
  }
  for (const g of headers[GROUP_HEADER] ?? []) out.push({ kind: 'Group', name: g });
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(EXTRA_PREFIX) || !values) continue;
    const key = decodeExtraKey(header.slice(EXTRA_PREFIX.length).toLowerCase());
    for (const value of values) out.push({ kind: 'UserExtra', key, value });
  }
  const uid = headers[UID_HEADER]?.[0] ?? '';
  if (uid !== '') out.push({ kind: 'UID', uid });
  if (user === '' && out.length > 0) {
    throw errors.badRequest(`requested [${out.map(describeTarget).join(' ')}] without impersonating a user`);
  }
  return out;
}

/** The authorisation check one target needs: verb `impersonate` on the matching resource. */
export function impersonationAttributes(t: ImpersonationTarget, requester: UserInfo): RequestAttributes {
  const base = { user: requester, verb: 'impersonate', resourceRequest: true, path: '', subresource: '', namespace: '' };
  switch (t.kind) {
    case 'User': return { ...base, apiGroup: '', apiVersion: 'v1', resource: 'users', name: t.name };
    case 'ServiceAccount': return { ...base, apiGroup: '', apiVersion: 'v1', resource: 'serviceaccounts', namespace: t.namespace, name: t.name };
    case 'Group': return { ...base, apiGroup: '', apiVersion: 'v1', resource: 'groups', name: t.name };
    case 'UserExtra': return { ...base, apiGroup: AUTHN_GROUP, apiVersion: 'v1', resource: 'userextras', subresource: t.key, name: t.value };
    case 'UID': return { ...base, apiGroup: AUTHN_GROUP, apiVersion: 'v1', resource: 'uids', name: t.uid };
  }
}

/**
 * The identity a request runs as after impersonation. Groups named in headers are the whole list;
 * without any, a service account gets its fixed groups. Like an authenticated user, the result
 * carries `system:authenticated` (or `system:unauthenticated` for system:anonymous) unless the
 * headers already chose one of the two.
 */
export function impersonatedUser(targets: readonly ImpersonationTarget[]): UserInfo {
  const groupsSpecified = targets.some((t) => t.kind === 'Group');
  let username = '';
  let uid = '';
  const groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const t of targets) {
    switch (t.kind) {
      case 'ServiceAccount':
        username = serviceAccountUsername(t.namespace, t.name);
        if (!groupsSpecified) groups.push(SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNTS_GROUP}:${t.namespace}`);
        break;
      case 'User':
        username = t.name;
        break;
      case 'Group':
        groups.push(t.name);
        break;
      case 'UserExtra':
        (extra[t.key] ??= []).push(t.value);
        break;
      case 'UID':
        uid = t.uid;
        break;
    }
  }
  if (username !== ANONYMOUS_USER) {
    if (!groups.includes(AUTHENTICATED_GROUP) && !groups.includes(UNAUTHENTICATED_GROUP)) groups.push(AUTHENTICATED_GROUP);
  } else if (!groups.includes(UNAUTHENTICATED_GROUP)) {
    groups.push(UNAUTHENTICATED_GROUP);
  }
  return { username, groups, ...(uid ? { uid } : {}), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
}

/** Whether a header name is one of the impersonation headers (lower-case names). */
function isImpersonationHeader(name: string): boolean {
  return name === USER_HEADER || name === GROUP_HEADER || name === UID_HEADER || name.startsWith(EXTRA_PREFIX);
}

export interface ActingIdentity {
  /** The identity the request runs as. */
  user: UserInfo;
  /** The authenticated requester's name when it impersonates someone. */
  impersonator?: string;
}

/** What impersonation reads of a request: its headers, both joined and with values kept apart. */
export interface ImpersonationRequest {
  headers: Record<string, unknown>;
  headersDistinct: DistinctHeaders;
}

/**
 * Resolves the identity a request runs as: the requester itself, or the identity its impersonation
 * headers ask for once every part is allowed; the headers are then removed from the request, so
 * nothing later reads them. Throws a 400 for malformed headers and a 403 naming the first refused
 * part.
 */
export function actAs(req: ImpersonationRequest, requester: UserInfo, authorizer: Authorizer): ActingIdentity {
  // Most requests carry no impersonation header: answer those without building the per-value view.
  let asked = false;
  for (const name in req.headers) if (isImpersonationHeader(name)) asked = true;
  if (!asked) return { user: requester };
  const distinct = req.headersDistinct;
  const targets = parseImpersonationHeaders(distinct);
  if (targets.length === 0) return { user: requester };
  for (const t of targets) {
    const attrs = impersonationAttributes(t, requester);
    const d = authorizer.authorize(attrs);
    if (d.decision !== 'allow') throw forbiddenError(attrs, d.decision === 'deny' ? d.reason : '');
  }
  for (const name of Object.keys(req.headers)) if (isImpersonationHeader(name)) delete req.headers[name];
  for (const name of Object.keys(distinct)) if (isImpersonationHeader(name)) delete distinct[name];
  return { user: impersonatedUser(targets), impersonator: requester.username };
}
