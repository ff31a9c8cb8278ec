// What every hub controller receives: the API client, shared informers, options, clock and logger.

import type { ManagedClusterAddOn } from '../../api/addon.js';
import type { ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding } from '../../api/cluster.js';
import type { CertificateSigningRequest, Lease } from '../../api/core.js';
import type { KubeObject } from '../../api/meta.js';
import type { Controller, ControllerOptions, Informer, KubeClient, ResourceType } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { HubOptions } from '../options.js';
import type { ClusterRbacSignal } from './rbac-signal.js';

export interface HubInformers {
  clusters: Informer<ManagedCluster>;
  clusterSets: Informer<ManagedClusterSet>;
  clusterSetBindings: Informer<ManagedClusterSetBinding>;
  addons: Informer<ManagedClusterAddOn>;
  /**
   * This and the core kinds below are label-filtered: only objects with the cluster-name label and
   * without the addon-name label.
   */
  leases: Informer<Lease>;
  csrs: Informer<CertificateSigningRequest>;
  clusterRoles: Informer<KubeObject>;
  clusterRoleBindings: Informer<KubeObject>;
  roleBindings: Informer<KubeObject>;
  /** Namespaces carrying the cluster-name label (the ones the hub creates). */
  namespaces: Informer<KubeObject>;
}

export type NewController = (opts: Omit<ControllerOptions, 'log' | 'clock'> & { log?: Logger }) => Controller;

export interface HubContext {
  client: KubeClient;
  informers: HubInformers;
  options: Readonly<HubOptions>;
  clock: Clock;
  log: Logger;
  newController: NewController;
  /** The CSR API in use (v1 unless the V1beta1CSRAPICompatibility gate found only v1beta1). */
  csrResource: ResourceType;
  /** Clusters whose RBAC the acceptance has just written (for the CSR approver). */
  rbacWritten: ClusterRbacSignal;
}

/** The special key of controllers that do not derive keys from objects. */
export const DEFAULT_KEY = 'basecontroller-default-key';

/**
 * Workers of the controllers a join passes through whose keys are clusters (acceptance, GC
 * finalizer, taints, lease). A key is never processed by two workers at once; with one worker a
 * join storm queued behind one cluster's round trips at a time (the acceptance alone makes four in
 * a row) while the hub's CPU idled. The CSR approver keeps one: an approval is one request, and its
 * queue's order is what tells a refusal logged before a later approval.
 */
export const CLUSTER_WORKERS = 10;
