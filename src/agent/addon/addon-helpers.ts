// Small pure facts about a ManagedClusterAddOn used by the addon controllers.

import type { ManagedClusterAddOn } from '../../api/addon.js';
import { annotations, names } from '../../api/constants.js';

/** status.namespace, else the v1alpha1 install-namespace annotation, else the default. */
export function addonInstallNamespace(addon: ManagedClusterAddOn): string {
  return addon.status?.namespace || addon.metadata.annotations?.[annotations.addonInstallNamespace] || names.addonInstallNamespace;
}

/** Hosted: the hosting-cluster annotation is present and non-empty (the addon agent runs on the management cluster). */
export function isHostedAddon(addon: ManagedClusterAddOn): boolean {
  return (addon.metadata.annotations?.[annotations.addonHostingClusterName] ?? '') !== '';
}

export function hostingClusterName(addon: ManagedClusterAddOn): string {
  return addon.metadata.annotations?.[annotations.addonHostingClusterName] ?? '';
}
