// The CertificateSigningRequest API the hub approves through: `certificates.k8s.io/v1`, or with the
// V1beta1CSRAPICompatibility gate `v1beta1` on an API server that serves v1beta1 but not v1, as
// OCM's hub decides at start-up.

import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient, ResourceType } from '../../client/types.js';
import { errorMessage } from '../../util/errors.js';

export async function hubCsrResource(client: KubeClient, v1beta1Compatibility: boolean, signal: AbortSignal): Promise<ResourceType> {
  if (!v1beta1Compatibility) return resourceTypes.certificateSigningRequests;
  let served: string[];
  try {
    const group = await client.request<{ versions?: { version?: string }[] }>('GET', '/apis/certificates.k8s.io', undefined, { signal });
    served = (group.versions ?? []).map((v) => v.version ?? '');
  } catch (err) {
    throw new Error(`failed CSR api discovery: ${errorMessage(err)}`, { cause: err });
  }
  return !served.includes('v1') && served.includes('v1beta1') ? resourceTypes.certificateSigningRequestsV1beta1 : resourceTypes.certificateSigningRequests;
}
