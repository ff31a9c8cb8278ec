// ManagedCluster validating admission, in the order of OCM's validating webhook: name and
// client-config URLs (400) → accept checks: namespace not terminating, then the requester may
// update managedclusters/accept (403) → cluster-set join checks (403). Decisions take the
// authorizer and a namespace lookup as plain functions.

import type { KubeObject } from '../../api/meta.js';
import { dns1123LabelProblems } from '../../api/name-rules.js';
import { errorMessage } from '../../util/errors.js';
import { errors, type ApiError } from '../http/errors.js';
import type { Authorizer, UserInfo } from '../pipeline.js';
import { CLUSTER_SET_LABEL } from './managed-cluster-mutating.js';

export const CLUSTER_GROUP = 'cluster.open-cluster-management.io';
const REGISTER_GROUP = 'register.open-cluster-management.io';

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
  managedClusterClientConfigs?: Array<{ url?: unknown }>;
}
const specOf = (o: KubeObject | undefined): ClusterSpec => (o && typeof o.spec === 'object' && o.spec !== null ? (o.spec as ClusterSpec) : {});

/** Name and client-config URL checks: 400 with sorted, newline-joined messages, or undefined. */
function validateNameAndUrls(obj: KubeObject): ApiError | undefined {
  const configs = Array.isArray(specOf(obj).managedClusterClientConfigs) ? specOf(obj).managedClusterClientConfigs! : [];
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
  return errors.badRequest(msgs.sort().join('\n'));
}

function allowed(authorizer: Authorizer, user: UserInfo, group: string, resource: string, subresource: string, verb: string, name: string): boolean {
  return authorizer.authorize({ user, verb, resourceRequest: true, path: '', apiGroup: group, apiVersion: '*', resource, subresource, namespace: '', name }).decision === 'allow';
}

export interface ValidateClusterInput {
  obj: KubeObject;
  old: KubeObject | undefined;
  user: UserInfo;
  authorizer: Authorizer;
  /** Phase of Namespace `<name>`, undefined when it does not exist. */
  namespacePhase: (name: string) => string | undefined;
}

/** Runs the ManagedCluster checks on CREATE (old undefined) or UPDATE; throws the first failure. */
export function validateManagedCluster(input: ValidateClusterInput): void {
  const { obj, old, user, authorizer } = input;
  const name = obj.metadata.name ?? '';
  const nameErr = validateNameAndUrls(obj);
  if (nameErr) throw nameErr;

  const accepts = specOf(obj).hubAcceptsClient === true;
  const wasAccepted = old !== undefined && specOf(old).hubAcceptsClient === true;
  if (accepts && !wasAccepted) {
    const acceptQr = { group: CLUSTER_GROUP, resource: 'managedclusters/accept' };
    let phase: string | undefined;
    try {
      phase = input.namespacePhase(name);
    } catch (err) {
      throw errors.forbidden(acceptQr, name, errorMessage(err));
    }
    if (phase === 'Terminating') throw errors.forbidden(acceptQr, name, `cluster namespace "${name}" is terminating`);
    if (!allowed(authorizer, user, REGISTER_GROUP, 'managedclusters', 'accept', 'update', name)) {
      throw errors.forbidden(acceptQr, name, `user "${user.username}" cannot update the HubAcceptsClient field`);
    }
  }

  const newSet = obj.metadata.labels?.[CLUSTER_SET_LABEL] ?? '';
  const oldSet = old?.metadata.labels?.[CLUSTER_SET_LABEL] ?? '';
  if (newSet !== oldSet) {
    for (const set of [oldSet, newSet]) {
      if (!set) continue;
      if (!allowed(authorizer, user, CLUSTER_GROUP, 'managedclustersets', 'join', 'create', set)) {
        throw errors.forbidden(
          { group: CLUSTER_GROUP, resource: 'managedclustersets/join' },
          set,
          `user "${user.username}" cannot add/remove a ManagedCluster to/from ManagedClusterSet "${set}"`,
        );
      }
    }
  }
}

/** ManagedClusterSetBinding: named after its cluster set, and only created by who may bind the set. */
export function validateClusterSetBinding(obj: KubeObject, isCreate: boolean, user: UserInfo, authorizer: Authorizer): void {
  const spec = typeof obj.spec === 'object' && obj.spec !== null ? (obj.spec as { clusterSet?: unknown }) : {};
  const set = typeof spec.clusterSet === 'string' ? spec.clusterSet : '';
  if (obj.metadata.name !== set) {
    throw errors.badRequest('The ManagedClusterSetBinding must have the same name as the target ManagedClusterSet');
  }
  if (!isCreate) return;
  if (!allowed(authorizer, user, CLUSTER_GROUP, 'managedclustersets', 'bind', 'create', set)) {
    // OCM's webhook names the `apps` group in this error; kept for parity.
    throw errors.forbidden({ group: 'apps', resource: 'managedclustersets/bind' }, set, `user "${user.username}" is not allowed to bind cluster set "${set}"`);
  }
}
