// Test helpers: the OCM CRDs. The upstream copies in shared/reference/crds (read-only reference data
// beside the repository on the team's machines and in CI) when present; otherwise the project's own
// manifests/crds, which keep the same schemas. Either way the tests run: nothing is skipped.

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseYaml } from '../../src/util/yaml.js';
import type { KubeObject } from '../../src/api/meta.js';
import type { JSONSchemaProps } from '../../src/apiserver/registry/schema/types.js';

import { fileURLToPath } from 'node:url';

const besideRepo = fileURLToPath(new URL('../../../shared/reference/crds', import.meta.url));
const ownManifests = fileURLToPath(new URL('../../manifests/crds', import.meta.url));
const upstream = process.env['OCM_TS_REFERENCE_CRDS'] ?? besideRepo;
const haveUpstream = existsSync(upstream);
export const REFERENCE_CRDS = haveUpstream ? upstream : ownManifests;

export function referenceCrdFiles(dir = REFERENCE_CRDS): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort().flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? referenceCrdFiles(p) : p.endsWith('.yaml') ? [p] : [];
  });
}

export function loadCrd(relative: string): KubeObject {
  return parseYaml(readFileSync(join(REFERENCE_CRDS, relative), 'utf8')) as KubeObject;
}

/** The openAPIV3Schema of one version of a CRD file. */
export function versionSchema(relative: string, version: string): JSONSchemaProps {
  const crd = loadCrd(relative) as { spec?: { versions?: Array<{ name: string; schema?: { openAPIV3Schema?: JSONSchemaProps } }> } };
  const v = crd.spec?.versions?.find((x) => x.name === version);
  if (!v?.schema?.openAPIV3Schema) throw new Error(`no schema for ${relative} ${version}`);
  return v.schema.openAPIV3Schema;
}

export const MANAGED_CLUSTER_CRD = haveUpstream
  ? 'cluster/v1/0000_00_clusters.open-cluster-management.io_managedclusters.crd.yaml'
  : 'managedclusters.cluster.open-cluster-management.io.yaml';
