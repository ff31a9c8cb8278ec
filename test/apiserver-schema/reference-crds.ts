// Test helpers: the real OCM CRDs of shared/reference/crds (read-only reference data that sits beside
// the repository on the team's machines and in CI). Tests that need them skip with `REFERENCE_CRDS_MISSING` as the reason.

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/api/meta.js';
import type { JSONSchemaProps } from '../../src/apiserver/registry/schema/types.js';

import { fileURLToPath } from 'node:url';

const besideRepo = fileURLToPath(new URL('../../../shared/reference/crds', import.meta.url));
export const REFERENCE_CRDS =
  process.env['OCM_TS_REFERENCE_CRDS'] ?? (existsSync(besideRepo) ? besideRepo : '/work/shared/reference/crds');

/** A skip reason when the reference CRDs are not on this machine, else false. */
export const REFERENCE_CRDS_MISSING: string | false = existsSync(REFERENCE_CRDS) ? false : `reference CRDs not found at ${REFERENCE_CRDS}`;

export function referenceCrdFiles(dir = REFERENCE_CRDS): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).sort().flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? referenceCrdFiles(p) : p.endsWith('.yaml') ? [p] : [];
  });
}

export function loadCrd(relative: string): KubeObject {
  return parse(readFileSync(join(REFERENCE_CRDS, relative), 'utf8')) as KubeObject;
}

/** The openAPIV3Schema of one version of a CRD file. */
export function versionSchema(relative: string, version: string): JSONSchemaProps {
  const crd = loadCrd(relative) as { spec?: { versions?: Array<{ name: string; schema?: { openAPIV3Schema?: JSONSchemaProps } }> } };
  const v = crd.spec?.versions?.find((x) => x.name === version);
  if (!v?.schema?.openAPIV3Schema) throw new Error(`no schema for ${relative} ${version}`);
  return v.schema.openAPIV3Schema;
}

export const MANAGED_CLUSTER_CRD = 'cluster/v1/0000_00_clusters.open-cluster-management.io_managedclusters.crd.yaml';
