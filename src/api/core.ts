// Kubernetes built-in shapes used by registration (only the fields it reads or writes).
import type { KubeObject } from './meta.js';

export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

interface CsrCondition {
  type: 'Approved' | 'Denied' | 'Failed' | string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  lastUpdateTime?: string;
  lastTransitionTime?: string;
}

export interface CertificateSigningRequest extends KubeObject {
  spec: {
    request: string; // base64 of the PEM
    signerName: string;
    expirationSeconds?: number;
    usages?: string[];
    username?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
  };
  status?: { conditions?: CsrCondition[]; certificate?: string };
}

export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  immutable?: boolean;
}

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: 'Active' | 'Terminating'; conditions?: unknown[] };
}

export interface Node extends KubeObject {
  spec?: { unschedulable?: boolean; [field: string]: unknown };
  status?: {
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    [field: string]: unknown;
  };
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface RoleRef {
  apiGroup: string;
  kind: 'ClusterRole' | 'Role';
  name: string;
}

export interface RbacSubject {
  kind: 'User' | 'Group' | 'ServiceAccount';
  name: string;
  apiGroup?: string;
  namespace?: string;
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: unknown[] };
}
export type Role = ClusterRole;

export interface ClusterRoleBinding extends KubeObject {
  roleRef: RoleRef;
  subjects?: RbacSubject[];
}
export type RoleBinding = ClusterRoleBinding;

export interface SubjectAccessReview extends KubeObject {
  spec: {
    user?: string;
    uid?: string;
    groups?: string[];
    extra?: Record<string, string[]>;
    resourceAttributes?: {
      namespace?: string;
      verb?: string;
      group?: string;
      version?: string;
      resource?: string;
      subresource?: string;
      name?: string;
    };
    nonResourceAttributes?: { path?: string; verb?: string };
  };
  status?: { allowed: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

/** events.k8s.io/v1 Event. */
export interface EventV1 extends KubeObject {
  eventTime?: string;
  reportingController?: string;
  reportingInstance?: string;
  action?: string;
  reason?: string;
  note?: string;
  type?: 'Normal' | 'Warning';
  regarding?: { apiVersion?: string; kind?: string; name?: string; namespace?: string; uid?: string };
}
