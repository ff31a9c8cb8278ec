// The listener of the components' health and metrics endpoints. With `tls` it serves HTTPS as OCM's
// controllers do (TLS 1.2 at least unless told otherwise, a serving certificate from files or, when
// none is given, a CA and a certificate made in memory at start); without, plain HTTP. The TLS
// settings come from ./tls-flags.ts (`--tls-min-version`, `--tls-cipher-suites`). The hub and the
// agent both serve through it.

import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { SecureVersion } from 'node:tls';
import { errorMessage } from './errors.js';
import { createServingCertPair } from './native-serving-cert.js';
import type { Logger } from './logger.js';
import { httpDate } from './utc-time.js';

/** TLS of an HTTPS listener: versions and ciphers (./tls-flags.ts) and, optionally, the certificate. */
export interface ServingTls {
  minVersion: SecureVersion;
  /** OpenSSL cipher list; undefined = Node's defaults. */
  ciphers?: string;
  /** Serving certificate and key as PEM files; neither = a CA and certificate made in memory. */
  certFile?: string;
  keyFile?: string;
  /** Extra DNS names or IPs of a certificate made in memory. */
  sans?: readonly string[];
}

export interface ServingOptions {
  /** `host:port`, `:port` or `port`; an empty host means every interface. */
  listen: string;
  /** HTTPS with these settings; omitted = plain HTTP. */
  tls?: ServingTls;
  /** Names the subject of a certificate made in memory (e.g. the component). */
  componentName?: string;
  handler(req: IncomingMessage, res: ServerResponse): void;
  log?: Logger;
}

export interface RunningServer {
  readonly port: number;
  /** `https://host:port` (or `http://` without TLS). */
  readonly url: string;
  /** PEM that verifies the serving certificate (the CA made in memory, or the given certificate); '' for HTTP. */
  readonly caPem: string;
  close(): Promise<void>;
}

/** Thrown for a listen address or serving certificate that cannot be used: a usage error. */
export class ServingConfigError extends Error {}

export function parseListenAddress(listen: string): { host: string; port: number } {
  const m = /^(?:(.*):)?(\d{1,5})$/.exec(listen.trim());
  if (!m || Number(m[2]) > 65535) throw new ServingConfigError(`invalid listen address ${JSON.stringify(listen)}: want host:port, :port or port`);
  let host = m[1] ?? '';
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? '0.0.0.0' : host, port: Number(m[2]) };
}

const DAY_MS = 24 * 3600 * 1000;

/** A CA and a serving certificate signed by it, valid for `host` (every local name for a wildcard). */
async function inMemoryServingPair(componentName: string, host: string, extra: readonly string[]): Promise<{ certPem: string; keyPem: string; caPem: string }> {
  const now = Date.now();
  // Clocks of the client and the server may disagree a little.
  const notBefore = new Date(now - 5 * 60_000);
  const notAfter = new Date(now + 365 * DAY_MS);
  const wildcard = host === '0.0.0.0' || host === '::';
  const names = [...new Set([...(wildcard ? ['localhost', hostname(), '127.0.0.1', '::1'] : ['localhost', host]), ...extra])].filter((n) => n !== '');
  return createServingCertPair({ commonName: componentName, names, notBefore, notAfter });
}

function readPem(what: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new ServingConfigError(`serving ${what} ${path}: ${errorMessage(err)}`);
  }
}

async function servingPair(o: ServingOptions, tls: ServingTls, host: string): Promise<{ certPem: string; keyPem: string; caPem: string }> {
  const certFile = tls.certFile ?? '';
  const keyFile = tls.keyFile ?? '';
  if ((certFile === '') !== (keyFile === '')) throw new ServingConfigError('a serving certificate needs both its certificate file and its key file');
  if (certFile !== '') {
    const certPem = readPem('certificate', certFile);
    return { certPem, keyPem: readPem('key', keyFile), caPem: certPem };
  }
  o.log?.info('serving with a certificate made at start (no certificate file given)');
  return inMemoryServingPair(o.componentName ?? 'ocm-ts', host, tls.sans ?? []);
}

export async function startServing(o: ServingOptions): Promise<RunningServer> {
  const { host, port } = parseListenAddress(o.listen);
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    // Node's own Date header goes through Date.prototype.toUTCString (see ./utc-time.ts).
    res.setHeader('Date', httpDate(Date.now()));
    try {
      o.handler(req, res);
    } catch (err) {
      o.log?.error('serving a request failed', { err: errorMessage(err), path: req.url });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    }
  };
  // Probes and scrapers are short-lived: a silent client does not get to hold a socket.
  const timeouts = { requestTimeout: 30_000, headersTimeout: 10_000, keepAliveTimeout: 5_000 };
  let server: Server;
  let caPem = '';
  if (o.tls !== undefined) {
    const pair = await servingPair(o, o.tls, host);
    caPem = pair.caPem;
    server = createHttpsServer(
      { ...timeouts, cert: pair.certPem, key: pair.keyPem, minVersion: o.tls.minVersion, ...(o.tls.ciphers !== undefined ? { ciphers: o.tls.ciphers } : {}) },
      handler,
    );
    // A failed handshake (a plain HTTP probe, a refused version) is the client's problem.
    server.on('tlsClientError', (err) => o.log?.debug('TLS handshake failed', { err: errorMessage(err) }));
  } else {
    server = createHttpServer(timeouts, handler);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const addr = server.address() as AddressInfo;
  const urlHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  const scheme = o.tls !== undefined ? 'https' : 'http';
  o.log?.info(`serving ${scheme.toUpperCase()}`, { address: `${urlHost}:${addr.port}`, ...(o.tls ? { minTLSVersion: o.tls.minVersion } : {}) });
  return {
    port: addr.port,
    url: `${scheme}://${urlHost}:${addr.port}`,
    caPem,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
