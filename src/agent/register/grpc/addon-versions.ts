// ManagedClusterAddOns travel over CloudEvents as addon.open-cluster-management.io/v1alpha1 (OCM's
// agent and server use that codec), while ocm-ts works with v1beta1. The two differ where the
// agent looks: how a registration names its signer and subject, where the kube client driver is
// kept, and where the install namespace lives. These conversions follow OCM's API conversion rules
// for those fields and pass everything else through. Pure.

import { annotations, names } from '../../../api/constants.js';
import type { ManagedClusterAddOn, RegistrationConfig, Subject } from '../../../api/addon.js';
import { isPlainObject, type JsonObject } from '../../../util/merge-patch.js';

const V1ALPHA1 = 'addon.open-cluster-management.io/v1alpha1';
const V1BETA1 = 'addon.open-cluster-management.io/v1beta1';

interface V1alpha1Subject {
  user?: string;
  groups?: string[];
  organizationUnit?: string[];
}

interface V1alpha1Registration {
  signerName: string;
  subject?: V1alpha1Subject;
}

/** An addon as untyped JSON with typed metadata. */
type WireAddon = JsonObject & { metadata: ManagedClusterAddOn['metadata'] };

function clone<T>(v: T): T {
  return structuredClone(v);
}

function strings(v: unknown): string[] | undefined {
  return Array.isArray(v) && v.every((s) => typeof s === 'string') ? (v as string[]) : undefined;
}

function subjectFromV1alpha1(s: unknown, withOus: boolean): Subject {
  const o = isPlainObject(s) ? s : {};
  const out: Subject = {};
  if (typeof o['user'] === 'string') out.user = o['user'];
  const groups = strings(o['groups']);
  if (groups) out.groups = groups;
  const ous = strings(o['organizationUnit']);
  if (withOus && ous) out.organizationUnits = ous;
  return out;
}

function subjectToV1alpha1(s: Subject | undefined, withOus: boolean): V1alpha1Subject {
  const out: V1alpha1Subject = { user: s?.user ?? '' };
  if (s?.groups) out.groups = s.groups;
  if (withOus && s?.organizationUnits) out.organizationUnit = s.organizationUnits;
  return out;
}

function registrationFromV1alpha1(r: unknown, driver: string | undefined): RegistrationConfig {
  const o = isPlainObject(r) ? r : {};
  const signerName = typeof o['signerName'] === 'string' ? o['signerName'] : '';
  if (signerName === names.kubeApiserverClientSigner) {
    const kubeClient: NonNullable<RegistrationConfig['kubeClient']> = { subject: subjectFromV1alpha1(o['subject'], false) };
    if (driver === 'csr' || driver === 'token') kubeClient.driver = driver;
    return { type: 'kubeClient', kubeClient };
  }
  return { type: 'customSigner', customSigner: { signerName, subject: subjectFromV1alpha1(o['subject'], true) } };
}

function registrationToV1alpha1(r: RegistrationConfig): V1alpha1Registration {
  if (r.type === 'kubeClient') return { signerName: names.kubeApiserverClientSigner, subject: subjectToV1alpha1(r.kubeClient?.subject, false) };
  return { signerName: r.customSigner?.signerName ?? '', subject: subjectToV1alpha1(r.customSigner?.subject, true) };
}

/** A v1alpha1 ManagedClusterAddOn (as the hub sent it) as the v1beta1 object the agent works with. */
export function fromV1alpha1Addon(obj: WireAddon): ManagedClusterAddOn {
  const out: WireAddon = clone(obj);
  out.apiVersion = V1BETA1;
  out.kind = 'ManagedClusterAddOn';
  const spec = isPlainObject(out['spec']) ? out['spec'] : undefined;
  if (spec && typeof spec['installNamespace'] === 'string') {
    const ns = spec['installNamespace'];
    delete spec['installNamespace'];
    if (ns !== '') out.metadata.annotations = { ...out.metadata.annotations, [annotations.addonInstallNamespace]: ns };
  }
  const status = isPlainObject(out['status']) ? out['status'] : undefined;
  if (status) {
    const driver = typeof status['kubeClientDriver'] === 'string' ? status['kubeClientDriver'] : undefined;
    delete status['kubeClientDriver'];
    if (Array.isArray(status['registrations'])) status['registrations'] = status['registrations'].map((r) => registrationFromV1alpha1(r, driver));
    if (Array.isArray(status['configReferences'])) {
      status['configReferences'] = status['configReferences'].map((c: unknown) => {
        if (!isPlainObject(c)) return c;
        const { name: _name, namespace: _namespace, ...rest } = c;
        return rest;
      });
    }
  }
  return out as ManagedClusterAddOn;
}

/** The agent's v1beta1 ManagedClusterAddOn as the v1alpha1 object sent to the hub. */
export function toV1alpha1Addon(obj: ManagedClusterAddOn): WireAddon {
  const out = clone(obj) as WireAddon;
  out.apiVersion = V1ALPHA1;
  out.kind = 'ManagedClusterAddOn';
  const ns = out.metadata.annotations?.[annotations.addonInstallNamespace];
  if (ns !== undefined && ns !== '') out['spec'] = { ...(isPlainObject(out['spec']) ? out['spec'] : {}), installNamespace: ns };
  const status = isPlainObject(out['status']) ? out['status'] : undefined;
  if (status && Array.isArray(status['registrations'])) {
    const regs = status['registrations'] as RegistrationConfig[];
    const driver = regs.find((r) => r.type === 'kubeClient' && r.kubeClient)?.kubeClient?.driver;
    status['registrations'] = regs.map(registrationToV1alpha1);
    if (driver !== undefined) status['kubeClientDriver'] = driver;
  }
  return out;
}
