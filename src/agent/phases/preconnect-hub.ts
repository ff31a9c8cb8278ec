// The hub connection of the next phase, opened ahead of it: a TLS handshake with the hub costs
// milliseconds on loopback and round trips to a remote hub, and it would otherwise start only once
// the phase sends its first request. Opening it while the agent still works on its own cluster (its
// namespace, its secrets; or, once the certificate is issued, stopping the bootstrap controllers)
// takes it off the join's critical path. Clients of one kubeconfig file share a transport, so the
// phase's own client uses this connection as long as the one opened here is held until the phase's
// client exists.

import { createKubeClient } from '../../client/rest-client.js';
import type { KubeClient } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';

/**
 * Opens a connection to the server of `kubeconfigFile` (REST over HTTP/2 only) and returns the
 * release of the client holding it (idempotent). Sends no request, so the credentials are only
 * used for the TLS handshake; any failure is left for the phase's first request.
 */
export function preconnectHub(kubeconfigFile: string, userAgent: string, log: Logger, o: { afterCurrentWork?: boolean } = {}): () => void {
  let client: KubeClient | undefined;
  let released = false;
  // afterCurrentWork: the requests the caller sends next (in this turn of the event loop) go first,
  // the connection opened here being needed later than theirs.
  const soon = o.afterCurrentWork
    ? setImmediate(() => {
        if (!released) client = open(kubeconfigFile, userAgent, log);
      })
    : undefined;
  if (soon === undefined) client = open(kubeconfigFile, userAgent, log);
  return () => {
    released = true;
    if (soon !== undefined) clearImmediate(soon);
    client?.close();
    client = undefined;
  };
}

function open(kubeconfigFile: string, userAgent: string, log: Logger): KubeClient | undefined {
  let client: KubeClient | undefined;
  try {
    // The same options as the phase's client (hub-client.ts) give the same shared transport.
    client = createKubeClient({ kubeconfigPath: kubeconfigFile }, { log, userAgent });
    client.preconnect?.();
  } catch {
    // An unreadable kubeconfig: the phase reports it when it loads the file itself.
  }
  return client;
}
