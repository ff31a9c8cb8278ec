// The registration webhook server: HTTPS (TLS 1.2 or newer), one POST path per OCM webhook, the
// AdmissionReview answered by the shared rules with SubjectAccessReviews and namespace lookups
// against the hub. An unusable request gets a Kubernetes Status with its 4xx code; a review is
// bounded by a deadline so that it answers before kube-apiserver's webhook timeout.

import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rfc3339 } from '../../api/conditions.js';
import type { Status } from '../../api/meta.js';
import type { KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import { ReviewInputError, decodeAdmissionReview, reviewResponse } from './admission-review.js';
import { hubAnswers } from './hub-answers.js';
import { REVIEW_HANDLERS, type ReviewAnswers } from './review-handlers.js';

// controller-runtime's limit: an AdmissionReview carries the object twice (new and old).
const MAX_BODY_BYTES = 7 * 1024 * 1024;
// kube-apiserver's default webhook timeout is 10 s; answering a little earlier beats being cut off.
const DEFAULT_REVIEW_TIMEOUT_MS = 9000;

export interface WebhookServerOptions {
  listen: { host: string; port: number };
  tls: { certPem: string; keyPem: string };
  /** The webhook's own identity on the hub: creates SubjectAccessReviews, gets namespaces. */
  client: KubeClient;
  /** The DefaultClusterSet feature gate. */
  defaultClusterSet: boolean;
  log: Logger;
  clock?: Clock;
  reviewTimeoutMs?: number;
  maxBodyBytes?: number;
  /** Replaces the hub lookups (tests). */
  answers?: (signal: AbortSignal) => ReviewAnswers;
}

export interface WebhookServer {
  /** https://host:port, with 127.0.0.1 for a wildcard listen address. */
  url: string;
  port: number;
  close(): Promise<void>;
}

function status(code: number, reason: string, message: string): Status {
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Failure', message, reason, code };
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
}

class BodyTooLargeError extends Error {}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      reject(new BodyTooLargeError());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooLargeError());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const isJsonContentType = (v: string | undefined): boolean => {
  const type = (v ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json';
};

export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const clock = opts.clock ?? realClock;
  const log = opts.log;
  const limit = opts.maxBodyBytes ?? MAX_BODY_BYTES;
  const timeoutMs = opts.reviewTimeoutMs ?? DEFAULT_REVIEW_TIMEOUT_MS;
  const answersFor = opts.answers ?? ((signal: AbortSignal) => hubAnswers(opts.client, signal));
  const closing = new AbortController();

  async function review(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    const handler = REVIEW_HANDLERS[path];
    if (!handler) {
      sendJson(res, 404, status(404, 'NotFound', `no webhook is served at ${JSON.stringify(path)}`));
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      sendJson(res, 405, status(405, 'MethodNotAllowed', `${req.method ?? ''} is not supported: post an AdmissionReview`));
      return;
    }
    if (!isJsonContentType(req.headers['content-type'])) {
      sendJson(res, 415, status(415, 'UnsupportedMediaType', `the body must be application/json, got ${JSON.stringify(req.headers['content-type'] ?? '')}`));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse((await readBody(req, limit)).toString('utf8'));
    } catch (err) {
      if (err instanceof BodyTooLargeError) {
        sendJson(res, 413, status(413, 'RequestEntityTooLarge', `the AdmissionReview is larger than ${limit} bytes`));
        res.once('finish', () => req.socket.destroy());
        return;
      }
      sendJson(res, 400, status(400, 'BadRequest', `the body is not JSON: ${errorMessage(err)}`));
      return;
    }
    let request;
    try {
      request = decodeAdmissionReview(body);
    } catch (err) {
      if (!(err instanceof ReviewInputError)) throw err;
      sendJson(res, 400, status(400, 'BadRequest', err.message));
      return;
    }
    const started = clock.now();
    const signal = AbortSignal.any([closing.signal, AbortSignal.timeout(timeoutMs)]);
    const response = await handler(request, {
      answers: answersFor(signal),
      nowRfc3339: rfc3339(new Date(clock.now())),
      defaultClusterSet: opts.defaultClusterSet,
    });
    const fields = {
      path, uid: request.uid, operation: request.operation, name: request.name, user: request.userInfo.username,
      allowed: response.allowed, durationMs: clock.now() - started,
      ...(response.allowed ? {} : { code: response.status?.code, message: response.status?.message }),
      ...(response.patch !== undefined ? { patched: true } : {}),
    };
    if (response.allowed) log.debug('admission review', fields);
    else log.info('admission review refused', fields);
    sendJson(res, 200, reviewResponse(response));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // kube-apiserver appends ?timeout=10s to the configured path.
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/healthz' || path === '/readyz' || path === '/livez') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok');
      return;
    }
    try {
      await review(req, res, path);
    } catch (err) {
      log.error('admission review failed', { path, err });
      if (!res.headersSent) sendJson(res, 500, status(500, 'InternalError', `admission review failed: ${errorMessage(err)}`));
      else res.destroy();
    }
  }

  const server: Server = createServer({
    key: opts.tls.keyPem,
    cert: opts.tls.certPem,
    minVersion: 'TLSv1.2',
    headersTimeout: 10_000,
    requestTimeout: timeoutMs + 20_000,
    keepAliveTimeout: 30_000,
  }, (req, res) => {
    void handle(req, res);
  });
  server.on('tlsClientError', (err) => log.debug('tls handshake failed', { err }));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.listen.port, opts.listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const host = opts.listen.host;
  const hostForUrl = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '[::1]' : host.includes(':') ? `[${host}]` : host;
  const url = `https://${hostForUrl}:${port}`;
  log.info('webhook server listening', { url, paths: Object.keys(REVIEW_HANDLERS) });
  return {
    url,
    port,
    async close() {
      closing.abort(new Error('webhook server stopping'));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
