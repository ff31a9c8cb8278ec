// Addon registration configs: which per-registration credential controllers
// an addon needs, with defaulted subjects and a hash that changes whenever anything that affects the
// credential changes (type, signer, subject, driver, install namespace, hosted flag). Pure.

import { createHash } from 'node:crypto';
import type { RegistrationConfig, Subject } from '../../api/addon.js';

export interface AddonRegistration {
  /** Hex SHA-256 over the defaulted registration and the install options. */
  hash: string;
  /** The registration after subject defaulting. */
  registration: RegistrationConfig;
  /** Secret holding the credential in the install namespace. */
  secretName: string;
  installationNamespace: string;
  /** Hosted addon: the secret lives on the management cluster. */
  agentRunningOutsideManagedCluster: boolean;
}

export interface RegistrationConfigInput {
  clusterName: string;
  addonName: string;
  registrations: readonly RegistrationConfig[] | undefined;
  installationNamespace: string;
  hosted: boolean;
}

export function defaultAddonUser(clusterName: string, addonName: string): string {
  return `system:open-cluster-management:cluster:${clusterName}:addon:${addonName}:agent:${addonName}`;
}

function defaultAddonGroup(clusterName: string, addonName: string): string {
  return `system:open-cluster-management:cluster:${clusterName}:addon:${addonName}`;
}

export function tokenUser(clusterName: string, addonName: string): string {
  return `system:serviceaccount:${clusterName}:${addonName}-agent`;
}

/**
 * Subject defaulting on a copy, as OCM's agent does: a `csr` kubeClient gets the default addon user
 * and group when they are empty, a `token` kubeClient gets its ServiceAccount user and no groups, a
 * customSigner gets the default user when empty; anything else is unchanged.
 */
export function setSubjectForRegistration(reg: RegistrationConfig, clusterName: string, addonName: string): RegistrationConfig {
  const out = structuredClone(reg);
  if (out.type === 'kubeClient' && out.kubeClient) {
    const driver = out.kubeClient.driver;
    if (driver === 'csr') {
      const subject: Subject = { ...(out.kubeClient.subject ?? {}) };
      if (!subject.user) subject.user = defaultAddonUser(clusterName, addonName);
      if (!subject.groups || subject.groups.length === 0) subject.groups = [defaultAddonGroup(clusterName, addonName)];
      out.kubeClient.subject = subject;
    } else if (driver === 'token') {
      out.kubeClient.subject = { user: tokenUser(clusterName, addonName) };
    }
  } else if (out.type === 'customSigner' && out.customSigner) {
    const subject: Subject = { ...(out.customSigner.subject ?? {}) };
    if (!subject.user) subject.user = defaultAddonUser(clusterName, addonName);
    out.customSigner.subject = subject;
  }
  return out;
}

/** Stable JSON (sorted keys) so that the hash does not depend on key order. */
function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export function configHash(registration: RegistrationConfig, installationNamespace: string, hosted: boolean): string {
  return createHash('sha256')
    .update(stableJson(registration))
    .update(stableJson({ installationNamespace, agentRunningOutsideManagedCluster: hosted }))
    .digest('hex');
}

export interface SkippedRegistration {
  index: number;
  reason: 'kube client is not configured' | 'customer signer is not configured' | 'unsupported registration type';
}

export function registrationConfigs(input: RegistrationConfigInput): { configs: AddonRegistration[]; skipped: SkippedRegistration[] } {
  const configs: AddonRegistration[] = [];
  const skipped: SkippedRegistration[] = [];
  (input.registrations ?? []).forEach((reg, index) => {
    let secretName: string;
    if (reg.type === 'kubeClient') {
      if (!reg.kubeClient) return void skipped.push({ index, reason: 'kube client is not configured' });
      secretName = `${input.addonName}-hub-kubeconfig`;
    } else if (reg.type === 'customSigner') {
      if (!reg.customSigner || !reg.customSigner.signerName) return void skipped.push({ index, reason: 'customer signer is not configured' });
      secretName = `${input.addonName}-${reg.customSigner.signerName.replaceAll('/', '-')}-client-cert`;
    } else {
      return void skipped.push({ index, reason: 'unsupported registration type' });
    }
    const registration = setSubjectForRegistration(reg, input.clusterName, input.addonName);
    configs.push({
      hash: configHash(registration, input.installationNamespace, input.hosted),
      registration,
      secretName,
      installationNamespace: input.installationNamespace,
      agentRunningOutsideManagedCluster: input.hosted,
    });
  });
  return { configs, skipped };
}
