// kube-apiserver's --max-requests-inflight and --max-mutating-requests-inflight, shared by
// `ocm-ts apiserver` and `ocm-ts hub --data-dir`.

import type { InflightLimits } from '../apiserver/http/inflight-limit.js';
import { parseIntFlag } from './int-flag.js';

export interface RawInflightFlags {
  maxRequestsInflight?: string;
  maxMutatingRequestsInflight?: string;
}

/** The limits given on the command line (the others keep their defaults); undefined when none is. */
export function parseInflightFlags(raw: RawInflightFlags): Partial<InflightLimits> | undefined {
  const out: Partial<InflightLimits> = {};
  if (raw.maxRequestsInflight !== undefined) out.maxRequestsInflight = parseIntFlag('--max-requests-inflight', raw.maxRequestsInflight, 0);
  if (raw.maxMutatingRequestsInflight !== undefined) out.maxMutatingRequestsInflight = parseIntFlag('--max-mutating-requests-inflight', raw.maxMutatingRequestsInflight, 0);
  return Object.keys(out).length > 0 ? out : undefined;
}
