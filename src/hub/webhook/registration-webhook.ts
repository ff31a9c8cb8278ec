// The webhook as a process component: the server, and the CA of a serving certificate made at
// start written out for the webhook configurations' caBundle. Used by `ocm-ts webhook` and by
// `ocm-ts hub --webhook-listen`.

import { writeFile } from 'node:fs/promises';
import type { KubeClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { ServingTls } from '../../util/secure-serving.js';
import { startWebhookServer, type WebhookServer } from './webhook-server.js';

export interface RegistrationWebhookOptions {
  /** `host:port`; port 0 picks a free port. */
  listen: string;
  /** TLS settings; without certificate files a CA and a certificate for the listen host are made at start. */
  tls: ServingTls;
  /** With a certificate made at start: where its CA is written (PEM). */
  writeCaFile?: string;
  client: KubeClient;
  defaultClusterSet: boolean;
  log: Logger;
  clock?: Clock;
}

export async function startRegistrationWebhook(opts: RegistrationWebhookOptions): Promise<WebhookServer> {
  const server = await startWebhookServer({
    listen: opts.listen, tls: opts.tls, client: opts.client, defaultClusterSet: opts.defaultClusterSet, log: opts.log,
    ...(opts.clock ? { clock: opts.clock } : {}),
  });
  if (opts.writeCaFile !== undefined && opts.tls.certFile === undefined) {
    try {
      // The CA is public: it is what callers trust, so the file is world-readable like any CA bundle.
      await writeFile(opts.writeCaFile, server.caPem, { mode: 0o644 });
    } catch (err) {
      await server.close();
      throw err;
    }
  }
  return server;
}
