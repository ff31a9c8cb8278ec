// Which CertificateSigningRequest API the agent talks to on the hub. `certificates.k8s.io/v1`
// normally; with the V1beta1CSRAPICompatibility gate, `v1beta1` when discovery shows the hub
// serves v1beta1 but not v1 (kube-apiserver before 1.19), as OCM's agent does. The choice is made
// on the first request and kept for the connection; a failed discovery is retried by the next one.

import type { CertificateSigningRequest } from '../../../api/core.js';
import type { KubeObject } from '../../../api/meta.js';
import { resourceTypes } from '../../../client/resource-types.js';
import type { CallOptions, KubeClient, ResourceClient, ResourceType } from '../../../client/types.js';

/** The served versions of certificates.k8s.io decide: v1beta1 only when v1 is missing. Pure. */
export function csrResourceFromVersions(served: readonly string[]): ResourceType {
  return !served.includes('v1') && served.includes('v1beta1') ? resourceTypes.certificateSigningRequestsV1beta1 : resourceTypes.certificateSigningRequests;
}

async function servedVersions(client: KubeClient, opts: CallOptions): Promise<string[]> {
  const group = await client.request<{ versions?: { version?: string }[] }>('GET', '/apis/certificates.k8s.io', undefined, opts);
  return (group.versions ?? []).map((v) => v.version ?? '');
}

/** The hub's CSR client; with `v1beta1Compatibility` it follows discovery, else it is plain v1. */
export function hubCsrClient(client: KubeClient, v1beta1Compatibility: boolean): ResourceClient<CertificateSigningRequest> {
  const v1 = client.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  if (!v1beta1Compatibility) return v1;
  let chosen: ResourceClient<CertificateSigningRequest> | undefined;
  const pick = async (opts: CallOptions | undefined): Promise<ResourceClient<CertificateSigningRequest>> => {
    if (chosen === undefined) {
      const type = csrResourceFromVersions(await servedVersions(client, opts?.signal ? { signal: opts.signal } : {}));
      chosen = client.resource<CertificateSigningRequest>(type);
    }
    return chosen;
  };
  const via = <R>(opts: CallOptions | undefined, call: (rc: ResourceClient<CertificateSigningRequest>) => Promise<R>): Promise<R> => pick(opts).then(call);
  return {
    type: v1.type,
    namespace: undefined,
    get: (n, o) => via(o, (rc) => rc.get(n, o)),
    list: (o) => via(o, (rc) => rc.list(o)),
    create: (obj, o) => via(o, (rc) => rc.create(withApiVersion(obj, rc.type), o)),
    update: (obj, o) => via(o, (rc) => rc.update(withApiVersion(obj, rc.type), o)),
    updateStatus: (obj, o) => via(o, (rc) => rc.updateStatus(withApiVersion(obj, rc.type), o)),
    updateSubresource: (obj, sub, o) => via(o, (rc) => rc.updateSubresource(withApiVersion(obj, rc.type), sub, o)),
    patch: (n, t, p, o) => via(o, (rc) => rc.patch(n, t, p, o)),
    delete: (n, o) => via(o, (rc) => rc.delete(n, o)),
    watch: (o) => ({
      async *[Symbol.asyncIterator]() {
        yield* (await pick(o)).watch(o);
      },
    }),
  };
}

/** A body names the version it is sent to (the v1 shape is also valid v1beta1). */
function withApiVersion<T extends KubeObject>(obj: T, type: ResourceType): T {
  return obj.apiVersion === undefined ? obj : { ...obj, apiVersion: `${type.group}/${type.version}` };
}
