// ManagedCluster and ManagedClusterSetBinding validating admission, in the order of OCM's
// validating webhook: name and client-config URLs (400) → accept checks: namespace not
// terminating, then the requester may update managedclusters/accept (403) → cluster-set join
// checks (403). The authorizer and the namespace lookup are plain functions whose answers may be
// promises (SubjectAccessReviews in the webhook) or plain values (the embedded server), see steps.ts.

import type { KubeObject } from '../meta.js';
import { dns1123LabelProblems } from '../name-rules.js';
import { errorMessage } from '../../util/errors.js';
import { admissionErrors, type AdmissionError, type AdmissionResource } from './admission-error.js';
import { CLUSTER_SET_LABEL } from './managed-cluster-mutating.js';
import { wait, type Steps } from './steps.js';

export const CLUSTER_GROUP = 'cluster.open-cluster-management.io';
const REGISTER_GROUP = 'register.open-cluster-management.io';

/** The requester, as authentication.k8s.io/v1 UserInfo. */
export interface AdmissionUser {
  username: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

/** One SubjectAccessReview-style question: may `user` do `verb` on this (cluster-scoped) resource? */
export interface AuthorizationCheck {
  user: AdmissionUser;
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  name: string;
}

/** Answers a check; a thrown error or rejection refuses the request with the error's message. */
export type Authorize = (check: AuthorizationCheck) => boolean | Promise<boolean>;

/** Phase of Namespace `name`, undefined when it does not exist; a failure refuses the request. */
export type NamespacePhase = (name: string) => string | undefined | Promise<string | undefined>;

export function isValidHttpsUrl(url: unknown): boolean {
  if (typeof url !== 'string' || url === '') return false;
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

interface ClusterSpec {
  hubAcceptsClient?: unknown;
  managedClusterClientConfigs?: unknown;
}
const specOf = (o: KubeObject | undefined): ClusterSpec => (o && typeof o.spec === 'object' && o.spec !== null ? (o.spec as ClusterSpec) : {});

function clientConfigsOf(obj: KubeObject): Array<{ url?: unknown } | null> {
  const configs = specOf(obj).managedClusterClientConfigs;
  return Array.isArray(configs) ? (configs as Array<{ url?: unknown } | null>) : [];
}

/** Name and client-config URL checks: 400 with sorted, newline-joined messages, or undefined. */
function validateNameAndUrls(obj: KubeObject): AdmissionError | undefined {
  const configs = clientConfigsOf(obj);
  const msgs: string[] = [];
  // OCM's webhook checks the name only when client configs exist; kept for parity.
  if (configs.length > 0) {
    const nameErrs = dns1123LabelProblems(obj.metadata.name ?? '');
    if (nameErrs.length > 0) msgs.push(`metadata.name format is not correct: ${nameErrs.join(',')}`);
  }
  for (const c of configs) {
    if (!isValidHttpsUrl(c?.url)) msgs.push(`url "${String(c?.url ?? '')}" is invalid in client configs`);
  }
  if (msgs.length === 0) return undefined;
  return admissionErrors.badRequest(msgs.sort().join('\n'));
}

/** Asks the authorizer; an authorizer failure refuses on `refusedAs`, with the failure's message. */
function* allowed(authorize: Authorize, check: AuthorizationCheck, refusedAs: AdmissionResource): Steps<boolean> {
  try {
    return (yield* wait(authorize(check))) === true;
  } catch (err) {
    throw admissionErrors.forbidden(refusedAs, check.name, errorMessage(err), err);
  }
}

export interface ValidateClusterInput {
  obj: KubeObject;
  /** The stored object on UPDATE; undefined on CREATE. */
  old: KubeObject | undefined;
  user: AdmissionUser;
  authorize: Authorize;
  namespacePhase: NamespacePhase;
}

/** The ManagedCluster checks of a CREATE (old undefined) or UPDATE; throws the first refusal. */
export function* validateManagedCluster(input: ValidateClusterInput): Steps<void> {
  const { obj, old, user, authorize } = input;
  const name = obj.metadata.name ?? '';
  const nameErr = validateNameAndUrls(obj);
  if (nameErr) throw nameErr;

  const accepts = specOf(obj).hubAcceptsClient === true;
  const wasAccepted = old !== undefined && specOf(old).hubAcceptsClient === true;
  if (accepts && !wasAccepted) {
    const acceptQr = { group: CLUSTER_GROUP, resource: 'managedclusters/accept' };
    let phase: string | undefined;
    try {
      phase = yield* wait(input.namespacePhase(name));
    } catch (err) {
      throw admissionErrors.forbidden(acceptQr, name, errorMessage(err), err);
    }
    if (phase === 'Terminating') throw admissionErrors.forbidden(acceptQr, name, `cluster namespace "${name}" is terminating`);
    const check = { user, verb: 'update', group: REGISTER_GROUP, resource: 'managedclusters', subresource: 'accept', name };
    if (!(yield* allowed(authorize, check, acceptQr))) {
      throw admissionErrors.forbidden(acceptQr, name, `user "${user.username}" cannot update the HubAcceptsClient field`);
    }
  }

  const newSet = obj.metadata.labels?.[CLUSTER_SET_LABEL] ?? '';
  const oldSet = old?.metadata.labels?.[CLUSTER_SET_LABEL] ?? '';
  if (newSet !== oldSet) {
    const joinQr = { group: CLUSTER_GROUP, resource: 'managedclustersets/join' };
    for (const set of [oldSet, newSet]) {
      if (!set) continue;
      const check = { user, verb: 'create', group: CLUSTER_GROUP, resource: 'managedclustersets', subresource: 'join', name: set };
      if (!(yield* allowed(authorize, check, joinQr))) {
        throw admissionErrors.forbidden(joinQr, set, `user "${user.username}" cannot add/remove a ManagedCluster to/from ManagedClusterSet "${set}"`);
      }
    }
  }
}

export interface ValidateBindingInput {
  obj: KubeObject;
  isCreate: boolean;
  user: AdmissionUser;
  authorize: Authorize;
}

/** ManagedClusterSetBinding: named after its cluster set, and only created by who may bind the set. */
export function* validateClusterSetBinding(input: ValidateBindingInput): Steps<void> {
  const { obj, user, authorize } = input;
  const spec = typeof obj.spec === 'object' && obj.spec !== null ? (obj.spec as { clusterSet?: unknown }) : {};
  const set = typeof spec.clusterSet === 'string' ? spec.clusterSet : '';
  if (obj.metadata.name !== set) {
    throw admissionErrors.badRequest('The ManagedClusterSetBinding must have the same name as the target ManagedClusterSet');
  }
  if (!input.isCreate) return;
  // OCM's webhook names the `apps` group in this error; kept for parity.
  const bindQr = { group: 'apps', resource: 'managedclustersets/bind' };
  const check = { user, verb: 'create', group: CLUSTER_GROUP, resource: 'managedclustersets', subresource: 'bind', name: set };
  if (!(yield* allowed(authorize, check, bindQr))) {
    throw admissionErrors.forbidden(bindQr, set, `user "${user.username}" is not allowed to bind cluster set "${set}"`);
  }
}
