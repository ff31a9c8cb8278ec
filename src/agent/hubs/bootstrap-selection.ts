// MultipleHubs bootstrap kubeconfig selection: prefer the candidate that points at the hub we are
// already connected to (only the first such match is considered), else the first valid candidate in
// order. The file reading and the validity check (./bootstrap-validity.ts) are injected, so the
// selection itself is a pure decision over their answers.

import { loadCurrentCluster } from '../register/raw-kubeconfig.js';
import { errorMessage } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';

export interface BootstrapSelectionInput {
  /** `--bootstrap-kubeconfigs`, in order. */
  candidates: readonly string[];
  /** The hub kubeconfig path (`--hub-kubeconfig`). */
  hubKubeconfigPath: string;
  clusterName: string;
  /** Server URL of a kubeconfig; undefined when the file does not exist; throws on other load errors. */
  serverUrlOf(path: string): string | undefined;
  /**
   * Resolves when the candidate is usable (its credentials may register the cluster and the hub has
   * not refused it), rejects with the reason otherwise.
   */
  checkValid(path: string, signal: AbortSignal): Promise<void>;
  log: Logger;
}

class NoBootstrapKubeconfigError extends Error {
  constructor(candidates: readonly string[], clusterName: string) {
    super(`no bootstrap kubeconfig in [${candidates.join(' ')}] is available for managed cluster ${clusterName}`);
    this.name = 'NoBootstrapKubeconfigError';
  }
}

function tryServerUrl(input: BootstrapSelectionInput, path: string): { url?: string; failed: boolean } {
  try {
    const url = input.serverUrlOf(path);
    return url === undefined ? { failed: false } : { url, failed: false };
  } catch (err) {
    input.log.warn('unable to load kubeconfig', { kubeconfig: path, err: errorMessage(err) });
    return { failed: true };
  }
}

export async function selectBootstrapKubeconfig(input: BootstrapSelectionInput, signal: AbortSignal): Promise<string> {
  // Pass 1: the candidate whose server is the one of the current hub kubeconfig.
  const hub = tryServerUrl(input, input.hubKubeconfigPath);
  if (hub.url !== undefined) {
    for (const path of input.candidates) {
      const c = tryServerUrl(input, path);
      if (c.url === undefined || c.url !== hub.url) continue;
      try {
        await input.checkValid(path, signal);
        return path;
      } catch (err) {
        input.log.info('bootstrap kubeconfig of the current hub is not valid', { kubeconfig: path, err: errorMessage(err) });
        break; // only the first match is considered
      }
    }
  }
  // Pass 2: the first valid candidate.
  for (const path of input.candidates) {
    try {
      await input.checkValid(path, signal);
      return path;
    } catch (err) {
      input.log.info('bootstrap kubeconfig is not valid', { kubeconfig: path, err: errorMessage(err) });
    }
  }
  throw new NoBootstrapKubeconfigError(input.candidates, input.clusterName);
}

/** Default `serverUrlOf`: the current context's cluster server, undefined when the file is missing. */
export function serverUrlOfKubeconfig(path: string): string | undefined {
  try {
    return loadCurrentCluster(path).server;
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    if (cause?.code === 'ENOENT') return undefined;
    throw err;
  }
}
