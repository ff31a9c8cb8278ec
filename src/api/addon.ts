// addon.open-cluster-management.io v1beta1 shapes (what hub and agent use on the wire).
import type { Condition, KubeObject } from './meta.js';

export interface Subject {
  user?: string;
  groups?: string[];
  organizationUnits?: string[];
}

export interface RegistrationConfig {
  type: 'kubeClient' | 'customSigner';
  kubeClient?: { subject?: Subject; driver?: 'csr' | 'token' };
  customSigner?: { signerName: string; subject?: Subject };
}

export interface ManagedClusterAddOn extends KubeObject {
  spec?: { configs?: { group?: string; resource: string; namespace?: string; name: string }[] };
  status?: {
    conditions?: Condition[];
    namespace?: string;
    registrations?: RegistrationConfig[];
    healthCheck?: { mode?: 'Lease' | 'Customized' };
    [field: string]: unknown;
  };
}
