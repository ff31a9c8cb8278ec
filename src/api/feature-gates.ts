// OCM feature gates: parsing of `--feature-gates A=true,B=false` and defaults per side.

export const SPOKE_FEATURE_DEFAULTS: Readonly<Record<string, boolean>> = {
  ClusterClaim: true,
  ClusterProperty: false,
  AddonManagement: true,
  V1beta1CSRAPICompatibility: false,
  MultipleHubs: false,
};

export const HUB_FEATURE_DEFAULTS: Readonly<Record<string, boolean>> = {
  DefaultClusterSet: true,
  V1beta1CSRAPICompatibility: false,
  ManagedClusterAutoApproval: false,
  ResourceCleanup: true,
  ClusterProfile: false,
  ClusterImporter: false,
};

export type FeatureGates = Readonly<Record<string, boolean>>;

export class FeatureGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeatureGateError';
  }
}

/**
 * Parses `A=true,B=false` (also accepted repeated: pass several strings) over the side's defaults.
 * Unknown gates and non-boolean values are errors, with the wording of Kubernetes' featuregate package.
 */
export function parseFeatureGates(specs: readonly string[], defaults: Readonly<Record<string, boolean>>): FeatureGates {
  const out: Record<string, boolean> = { ...defaults };
  for (const spec of specs) {
    for (const raw of spec.split(',')) {
      const item = raw.trim();
      if (item === '') continue;
      const eq = item.indexOf('=');
      if (eq < 0) throw new FeatureGateError(`missing bool value for ${item}`);
      const k = item.slice(0, eq).trim();
      const v = item.slice(eq + 1).trim().toLowerCase();
      if (!(k in defaults)) throw new FeatureGateError(`unrecognized feature gate: ${k}`);
      if (v !== 'true' && v !== 'false') throw new FeatureGateError(`invalid value of ${k}=${item.slice(eq + 1)}, err: strconv.ParseBool: parsing "${item.slice(eq + 1)}": invalid syntax`);
      out[k] = v === 'true';
    }
  }
  return Object.freeze(out);
}
