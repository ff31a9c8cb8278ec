// The webhook as a process component: its serving certificate (the given files, or one generated
// for the listen host with the CA written out for caBundle) and the server. Used by
// `ocm-ts webhook` and by `ocm-ts hub --webhook-listen`.

import { readFile, writeFile } from 'node:fs/promises';
import type { KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { generateServingCertificate, servingNames } from './serving-cert.js';
import { startWebhookServer, type WebhookServer } from './webhook-server.js';

export interface RegistrationWebhookOptions {
  listen: { host: string; port: number };
  /** PEM files of the serving certificate and key; absent: a self-signed one is generated. */
  tlsFiles?: { certFile: string; keyFile: string };
  /** Where the generated certificate's CA is written (PEM), for the webhook configurations' caBundle. */
  writeCaFile?: string;
  /** Extra DNS names or IPs of the generated certificate (e.g. the Service's DNS name). */
  extraSans?: string[];
  client: KubeClient;
  defaultClusterSet: boolean;
  log: Logger;
  clock?: Clock;
}

export interface RegistrationWebhook extends WebhookServer {
  /** The generated CA (PEM); undefined when the certificate came from files. */
  caPem: string | undefined;
}

export async function startRegistrationWebhook(opts: RegistrationWebhookOptions): Promise<RegistrationWebhook> {
  const clock = opts.clock ?? realClock;
  let tls: { certPem: string; keyPem: string };
  let caPem: string | undefined;
  if (opts.tlsFiles) {
    tls = { certPem: await readFile(opts.tlsFiles.certFile, 'utf8'), keyPem: await readFile(opts.tlsFiles.keyFile, 'utf8') };
  } else {
    const generated = await generateServingCertificate({ sans: servingNames(opts.listen.host, opts.extraSans), clock });
    tls = generated;
    caPem = generated.caPem;
    opts.log.info('generated a self-signed serving certificate', { sans: generated.sans, ...(opts.writeCaFile ? { caFile: opts.writeCaFile } : {}) });
    // The CA is public: it is what callers trust, so the file is world-readable like any CA bundle.
    if (opts.writeCaFile) await writeFile(opts.writeCaFile, generated.caPem, { mode: 0o644 });
  }
  const server = await startWebhookServer({
    listen: opts.listen, tls, client: opts.client, defaultClusterSet: opts.defaultClusterSet, log: opts.log, clock,
  });
  return { ...server, caPem };
}
