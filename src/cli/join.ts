// `ocm-ts join`, the spoke side: what the klusterlet operator puts on a managed cluster before the
// registration agent starts: the spoke CRDs the agent watches, the agent namespace and the
// bootstrap secret. Idempotent: a second join updates the secret and keeps the rest.
import type { Secret } from '../api/core.js';
import { names } from '../api/constants.js';
import { loadCrds, SPOKE_CRD_NAMES } from '../api/crds.js';
import { isAlreadyExists, isNotFound } from '../client/errors.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import { installCrds } from '../hub/install-crds.js';
import type { Clock } from '../util/clock.js';
import { bootstrapSecret } from './join-manifests.js';

export async function prepareSpokeForJoin(client: KubeClient, o: { bootstrapKubeconfig: string; clock: Clock; signal: AbortSignal; say: (line: string) => void }): Promise<void> {
  await installCrds(client, loadCrds(SPOKE_CRD_NAMES), { clock: o.clock, signal: o.signal });
  try {
    await client.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: names.agentNamespace } }, { signal: o.signal });
    o.say(`created namespace ${names.agentNamespace}`);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  const secrets = client.resource<Secret>(resourceTypes.secrets, names.agentNamespace);
  const want = bootstrapSecret(o.bootstrapKubeconfig);
  const where = `${names.agentNamespace}/${names.bootstrapSecret}`;
  try {
    const cur = await secrets.get(names.bootstrapSecret, { signal: o.signal });
    if (cur.data?.['kubeconfig'] === want.data['kubeconfig']) {
      o.say(`secret ${where} is up to date`);
      return;
    }
    // Other keys are kept: only the kubeconfig is ours to replace. The agent restarts on the change.
    await secrets.update({ ...cur, data: { ...cur.data, kubeconfig: want.data['kubeconfig']! } }, { signal: o.signal });
    o.say(`updated secret ${where}`);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await secrets.create(want, { signal: o.signal });
    o.say(`created secret ${where}`);
  }
}
