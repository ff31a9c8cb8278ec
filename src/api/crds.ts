// The project's CRD manifests (manifests/crds/): OCM's schemas without upstream prose.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { parseYaml } from '../util/yaml.js';
import type { KubeObject } from './meta.js';

/** manifests/crds relative to this module, in both src/ (tsx) and dist/ (compiled) layouts. */
function crdManifestDir(): string {
  return fileURLToPath(new URL('../../manifests/crds/', import.meta.url));
}

export const HUB_CRD_NAMES: readonly string[] = [
  'managedclusters.cluster.open-cluster-management.io',
  'managedclustersets.cluster.open-cluster-management.io',
  'managedclustersetbindings.cluster.open-cluster-management.io',
  'managedclusteraddons.addon.open-cluster-management.io',
  'clustermanagementaddons.addon.open-cluster-management.io',
];

export const SPOKE_CRD_NAMES: readonly string[] = [
  'clusterclaims.cluster.open-cluster-management.io',
  'clusterproperties.about.k8s.io',
];

/** Loads the named CRDs (all when `names` is omitted). */
export function loadCrds(names?: readonly string[]): KubeObject[] {
  const dir = crdManifestDir();
  const files = readdirSync(dir).filter((f) => f.endsWith('.yaml'));
  const all = files.map((f) => parseYaml(readFileSync(join(dir, f), 'utf8')) as KubeObject);
  if (!names) return all;
  return names.map((n) => {
    const crd = all.find((c) => c.metadata.name === n);
    if (!crd) throw new Error(`CRD manifest ${n} not found in ${dir}`);
    return crd;
  });
}
