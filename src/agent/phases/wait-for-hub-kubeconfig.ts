// While the bootstrap controllers work, the run waits until the hub kubeconfig files hold valid
// credentials for this cluster and hub. OCM polls every second; the wait also wakes as soon as the
// hub kubeconfig secret has been copied to new files, which makes the switch to the main phase
// immediate, and the poll stays as the fallback.

import type { Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import type { SpokeAgentOptions } from '../options/agent-options.js';
import { createHubKubeconfigValidity } from '../register/hub-kubeconfig-validity.js';
import type { HubTransport } from './bootstrap-hub.js';
import type { AgentNames } from './prepare.js';

/** A one-shot-per-wait notification: `next()` resolves on the following `wake()`. */
export interface Wakeup {
  wake(): void;
  next(): Promise<void>;
}

export function createWakeup(): Wakeup {
  // One shared promise per generation, so waiting in a loop does not pile up listeners.
  let pending: { promise: Promise<void>; resolve: () => void } | undefined;
  return {
    wake() {
      pending?.resolve();
      pending = undefined;
    },
    next() {
      if (!pending) {
        let resolve!: () => void;
        const promise = new Promise<void>((r) => (resolve = r));
        pending = { promise, resolve };
      }
      return pending.promise;
    },
  };
}

export interface HubKubeconfigCheckInput {
  options: Pick<SpokeAgentOptions, 'namespace' | 'hubKubeconfigSecret' | 'hubKubeconfigDir'>;
  names: AgentNames;
  /** The hub credentials are only valid for the hub this kubeconfig points at. */
  bootstrapKubeconfigFile: string;
  /** With the gRPC driver, the saved gRPC config must also be for the bootstrap config's server. */
  transport?: HubTransport;
  clock: Clock;
}

/**
 * "The hub kubeconfig is valid" now: false means bootstrap, a throw means a broken file. Decides
 * whether to bootstrap, ends the wait, and is the health check of the main phase.
 */
export function hubKubeconfigCheck(i: HubKubeconfigCheckInput): () => boolean {
  const validAt = createHubKubeconfigValidity({
    secretNamespace: i.options.namespace,
    secretName: i.options.hubKubeconfigSecret,
    clusterName: i.names.clusterName,
    agentName: i.names.agentId,
    hubKubeconfigFile: i.names.hubKubeconfigFile,
    hubKubeconfigDir: i.options.hubKubeconfigDir,
    bootstrapKubeconfigFile: i.bootstrapKubeconfigFile,
  });
  const transport = i.transport;
  if (transport?.kind === 'grpc') return () => validAt(new Date(i.clock.now())) && transport.modules.grpcHubConfigMatches(transport);
  return () => validAt(new Date(i.clock.now()));
}

export interface HubKubeconfigWait {
  valid(): boolean;
  filesChanged: Wakeup;
  pollMs: number;
  clock: Clock;
  log: Logger;
}

/** Resolves true once valid, false when the signal aborted first; throws when the files are broken. */
export async function waitForHubKubeconfig(w: HubKubeconfigWait, signal: AbortSignal): Promise<boolean> {
  w.log.info('Waiting for hub client config and managed cluster to be ready');
  for (;;) {
    if (signal.aborted) return false;
    let ok: boolean;
    try {
      ok = w.valid();
    } catch (err) {
      throw new Error(`failed to wait for hub client config for managed cluster to be ready: ${errorMessage(err)}`, { cause: err });
    }
    if (ok) return true;
    const poll = new AbortController();
    const onAbort = (): void => poll.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      // The sleep rejects when aborted (by us or the caller): swallowed, the loop re-checks the signal.
      await Promise.race([w.clock.sleep(w.pollMs, poll.signal).catch(() => undefined), w.filesChanged.next()]);
    } finally {
      poll.abort();
      signal.removeEventListener('abort', onAbort);
    }
  }
}
