// Installs CRDs (create, or update when they differ) and waits until each is Established.

import type { KubeObject } from '../api/meta.js';
import { isAlreadyExists } from '../client/errors.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import { semanticEqual } from '../util/merge-patch.js';

function established(crd: KubeObject): boolean {
  const conds = (crd['status'] as { conditions?: { type: string; status: string }[] } | undefined)?.conditions ?? [];
  return conds.some((c) => c.type === 'Established' && c.status === 'True');
}

export async function installCrds(client: KubeClient, crds: readonly KubeObject[], opts: { clock: Clock; signal?: AbortSignal; timeoutMs?: number }): Promise<void> {
  const rc = client.resource(resourceTypes.customResourceDefinitions);
  const call = opts.signal ? { signal: opts.signal } : {};
  for (const crd of crds) {
    try {
      await rc.create(structuredClone(crd), call);
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      const cur = await rc.get(crd.metadata.name ?? '', call);
      if (!semanticEqual(cur['spec'], crd['spec'])) await rc.update({ ...structuredClone(crd), metadata: { ...crd.metadata, resourceVersion: cur.metadata.resourceVersion } }, call);
    }
  }
  const deadline = opts.clock.now() + (opts.timeoutMs ?? 30_000);
  for (const crd of crds) {
    for (;;) {
      const cur = await rc.get(crd.metadata.name ?? '', call);
      if (established(cur)) break;
      if (opts.clock.now() >= deadline) throw new Error(`CRD ${crd.metadata.name ?? ''} was not Established in time`);
      await opts.clock.sleep(20, opts.signal);
    }
  }
}
