// The MultipleHubs selection wired to real files and clients: each candidate is checked with a
// client built from its kubeconfig. Returns the selected index.

import { createKubeClient } from '../../client/rest-client.js';
import type { KubeClient } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';
import { errorMessage } from '../../util/errors.js';
import { selectBootstrapKubeconfig, serverUrlOfKubeconfig } from './bootstrap-selection.js';
import { checkBootstrapCandidate } from './bootstrap-validity.js';

export interface SelectFromFilesInput {
  clusterName: string;
  hubKubeconfigFile: string;
  /** `--bootstrap-kubeconfigs`. */
  candidates: readonly string[];
  log: Logger;
  signal: AbortSignal;
  /** Client factory (default createKubeClient with a 10 s timeout). */
  buildClient?: (kubeconfigPath: string) => KubeClient;
}

export async function selectBootstrapKubeconfigIndex(input: SelectFromFilesInput): Promise<number> {
  const build = input.buildClient ?? ((p: string) => createKubeClient({ kubeconfigPath: p }, { log: input.log, timeoutMs: 10_000 }));
  const path = await selectBootstrapKubeconfig(
    {
      candidates: input.candidates,
      hubKubeconfigPath: input.hubKubeconfigFile,
      clusterName: input.clusterName,
      serverUrlOf: serverUrlOfKubeconfig,
      checkValid: async (p, signal) => {
        let client: KubeClient;
        try {
          client = build(p);
        } catch (err) {
          throw new Error(`failed to build bootstrap kubeconfig: ${errorMessage(err)}`, { cause: err });
        }
        try {
          await checkBootstrapCandidate(client, input.clusterName, signal);
        } finally {
          client.close();
        }
      },
      log: input.log,
    },
    input.signal,
  );
  return input.candidates.indexOf(path);
}
