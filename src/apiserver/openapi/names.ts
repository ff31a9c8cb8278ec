// Names kube-apiserver gives OpenAPI definitions and operations, so that clients which look a kind
// up by name (kubectl, code generators) find it where they would on a real cluster.

import type { GroupVersionKind } from './types.js';

const META_PREFIX = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Definition name of a shared meta type (ObjectMeta, ListMeta, Status...). */
export function metaName(kind: string): string {
  return `${META_PREFIX}.${kind}`;
}

/** Go package path of a built-in group, dotted: the first label of the group under io.k8s.api. */
function builtinPackage(group: string): string {
  if (group === '') return 'io.k8s.api.core';
  if (group === 'apiextensions.k8s.io') return 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions';
  if (group === 'apiregistration.k8s.io') return 'io.k8s.kube-aggregator.pkg.apis.apiregistration';
  return `io.k8s.api.${group.split('.')[0]}`;
}

/**
 * Definition name of a kind: built-ins by their Go package (`io.k8s.api.core.v1.Namespace`),
 * custom resources by reversed group (`io.open-cluster-management.cluster.v1.ManagedCluster`).
 */
export function definitionName(gvk: GroupVersionKind, custom: boolean): string {
  const prefix = custom ? gvk.group.split('.').reverse().join('.') : builtinPackage(gvk.group);
  return `${prefix}.${gvk.version}.${gvk.kind}`;
}

const capitalise = (s: string): string => (s ? s[0].toUpperCase() + s.slice(1) : s);

/** The group as it appears inside operation ids: `Core`, `RbacAuthorization`, `ClusterOpenClusterManagementIo`. */
function groupWord(group: string, custom: boolean): string {
  if (group === '') return 'Core';
  const trimmed = custom ? group : group.replace(/\.k8s\.io$/, '');
  return trimmed.split(/[.-]/).map(capitalise).join('');
}

/** Operation id stem shared by a resource's operations, e.g. `CoreV1Namespaced` + kind. */
export function operationStem(gvk: GroupVersionKind, custom: boolean): string {
  return `${groupWord(gvk.group, custom)}${capitalise(gvk.version)}`;
}

/** Tag grouping a group version's operations (`core_v1`, `clusterOpenClusterManagementIo_v1`). */
export function tagOf(group: string, version: string, custom: boolean): string {
  const word = groupWord(group, custom);
  return `${word[0].toLowerCase()}${word.slice(1)}_${version}`;
}

/** Key of a group version in the OpenAPI v3 discovery document (`api/v1`, `apis/<group>/<version>`). */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}
