// Claim reconciler: expose ClusterClaims (gate ClusterClaim) and
// ClusterProperties (gate ClusterProperty) in status.clusterClaims, only once the cluster has
// joined. Items labelled spoke-only are hidden; a property wins over a claim of the same name;
// reserved claims (4 names or a reserved suffix) come first and are never truncated; custom claims
// are sorted and truncated to `maxCustomClaims`.

import type { ClusterClaim, ClusterProperty, ManagedCluster } from '../../api/cluster.js';
import { isConditionTrue } from '../../api/conditions.js';
import { RESERVED_CLUSTER_CLAIM_NAMES, conditionTypes, labels } from '../../api/constants.js';
import type { StatusContext, StatusReconciler, StepResult } from './reconciler.js';
import { errorMessage } from '../../util/errors.js';

export interface ClaimItem {
  name: string;
  value: string;
}

export interface ExposeClaimsInput {
  /** undefined when the ClusterProperty gate is off. */
  properties?: readonly ClusterProperty[];
  /** undefined when the ClusterClaim gate is off. */
  claims?: readonly ClusterClaim[];
  maxCustomClaims: number;
  reservedSuffixes: readonly string[];
}

export interface ExposeClaimsResult {
  claims: ClaimItem[];
  /** Set when custom claims were cut: total custom count and the limit. */
  truncated?: { found: number; max: number };
}

function exported(o: { metadata: { labels?: Record<string, string> } }): boolean {
  return !(o.metadata.labels && labels.spokeOnly in o.metadata.labels);
}

function byteOrder(a: ClaimItem, b: ClaimItem): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function isReservedClaim(name: string, reservedSuffixes: readonly string[]): boolean {
  return RESERVED_CLUSTER_CLAIM_NAMES.includes(name) || reservedSuffixes.some((s) => name.endsWith(s));
}

/** Pure. */
export function exposeClaims(input: ExposeClaimsInput): ExposeClaimsResult {
  const merged = new Map<string, string>();
  for (const p of input.properties ?? []) if (exported(p) && p.metadata.name) merged.set(p.metadata.name, p.spec?.value ?? '');
  for (const c of input.claims ?? []) {
    const name = c.metadata.name;
    if (!name || !exported(c) || merged.has(name)) continue;
    merged.set(name, c.spec?.value ?? '');
  }
  const reserved: ClaimItem[] = [];
  const custom: ClaimItem[] = [];
  for (const [name, value] of merged) (isReservedClaim(name, input.reservedSuffixes) ? reserved : custom).push({ name, value });
  reserved.sort(byteOrder);
  custom.sort(byteOrder);
  if (custom.length > input.maxCustomClaims) {
    return { claims: [...reserved, ...custom.slice(0, input.maxCustomClaims)], truncated: { found: custom.length, max: input.maxCustomClaims } };
  }
  return { claims: [...reserved, ...custom] };
}

export interface ClaimReconcilerOptions {
  /** Lists ClusterClaims (the informer's lister); omit when the ClusterClaim gate is off. */
  listClaims?: () => ClusterClaim[];
  /** Lists ClusterProperties; omit when the ClusterProperty gate is off. */
  listProperties?: () => ClusterProperty[];
  /** `--max-custom-cluster-claims` (default 20). */
  maxCustomClaims?: number;
  /** `--reserved-cluster-claim-suffixes`. */
  reservedSuffixes?: readonly string[];
}

const DEFAULT_MAX_CUSTOM_CLAIMS = 20;

export function createClaimReconciler(opts: ClaimReconcilerOptions): StatusReconciler {
  const maxCustomClaims = opts.maxCustomClaims ?? DEFAULT_MAX_CUSTOM_CLAIMS;
  const reservedSuffixes = opts.reservedSuffixes ?? [];
  return {
    name: 'claim',
    async reconcile(obj: ManagedCluster, ctx: StatusContext): Promise<StepResult> {
      if (!isConditionTrue(obj.status?.conditions, conditionTypes.joined)) {
        ctx.event('ManagedClusterIsNotAccepted', `Managed cluster "${ctx.clusterName}" does not join the hub yet`);
        return { obj, next: 'continue' };
      }
      let properties: ClusterProperty[] | undefined;
      let claims: ClusterClaim[] | undefined;
      try {
        properties = opts.listProperties?.();
      } catch (err) {
        return { obj, next: 'continue', error: new Error(`unable to list cluster properties: ${errorMessage(err)}`, { cause: err }) };
      }
      try {
        claims = opts.listClaims?.();
      } catch (err) {
        return { obj, next: 'continue', error: new Error(`unable to list cluster claims: ${errorMessage(err)}`, { cause: err }) };
      }
      const res = exposeClaims({ ...(properties ? { properties } : {}), ...(claims ? { claims } : {}), maxCustomClaims, reservedSuffixes });
      if (res.truncated) {
        const { found, max } = res.truncated;
        ctx.event(
          'CustomClusterClaimsTruncated',
          `${found} cluster claims are found. It exceeds the max number of custom cluster claims (${max}). ${found - max} custom cluster claims are not exposed.`,
        );
      }
      const status = obj.status ?? {};
      status.clusterClaims = res.claims;
      obj.status = status;
      return { obj, next: 'continue' };
    },
  };
}
