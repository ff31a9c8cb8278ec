// The registration webhook server: HTTPS through the components' secure serving (TLS 1.2 or newer
// unless told otherwise), one POST path per OCM webhook, the AdmissionReview answered by the shared
// rules with SubjectAccessReviews and namespace lookups against the hub. An unusable request gets a
// Kubernetes Status with its 4xx code; a review is bounded by a deadline so that it answers before
// kube-apiserver's webhook timeout.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { rfc3339 } from '../../api/conditions.js';
import type { Status } from '../../api/meta.js';
import type { KubeClient } from '../../client/types.js';
import { realClock, type Clock } from '../../util/clock.js';
import { errorMessage } from '../../util/errors.js';
import type { Logger } from '../../util/logger.js';
import { startServing, type RunningServer, type ServingTls } from '../../util/secure-serving.js';
import { ReviewInputError, decodeAdmissionReview, reviewResponse } from './admission-review.js';
import { hubAnswers } from './hub-answers.js';
import { REVIEW_HANDLERS, type ReviewAnswers } from './review-handlers.js';
import { requestSignal } from '../../client/request-signal.js';

// controller-runtime's limit: an AdmissionReview carries the object twice (new and old).
const MAX_BODY_BYTES = 7 * 1024 * 1024;
// kube-apiserver's default webhook timeout is 10 s; answering a little earlier beats being cut off.
const DEFAULT_REVIEW_TIMEOUT_MS = 9000;

export interface WebhookServerOptions {
  /** `host:port`; port 0 picks a free port. */
  listen: string;
  /** TLS versions, ciphers and the certificate files; without files a CA and certificate are made at start. */
  tls: ServingTls;
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

export type WebhookServer = RunningServer;

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

/** Reviews slower than this are logged at warn. */
const SLOW_REVIEW_MS = 1000;

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
    const review = requestSignal(closing.signal, timeoutMs);
    let response: Awaited<ReturnType<typeof handler>>;
    try {
      response = await handler(request, {
        answers: answersFor(review.signal!),
        nowRfc3339: rfc3339(new Date(clock.now())),
        defaultClusterSet: opts.defaultClusterSet,
      });
    } finally {
      review.release();
    }
    const fields = {
      path, uid: request.uid, operation: request.operation, name: request.name, user: request.userInfo.username,
      allowed: response.allowed, durationMs: clock.now() - started,
      ...(response.allowed ? {} : { code: response.status?.code, message: response.status?.message }),
      ...(response.patch !== undefined ? { patched: true } : {}),
    };
    // A review near kube-apiserver's timeout holds the writer's request that long (an agent's
    // ManagedCluster create among them): worth seeing without debug logs.
    if (fields.durationMs >= SLOW_REVIEW_MS) log.warn('slow admission review', fields);
    else if (response.allowed) log.debug('admission review', fields);
    else log.info('admission review refused', fields);
    sendJson(res, 200, reviewResponse(response, request.apiVersion));
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

  const server = await startServing({
    listen: opts.listen,
    tls: opts.tls,
    componentName: 'ocm-ts-webhook',
    handler: (req, res) => {
      void handle(req, res);
    },
    log,
  });
  log.info('webhook server listening', { url: server.url, paths: Object.keys(REVIEW_HANDLERS) });
  return {
    port: server.port,
    url: server.url,
    caPem: server.caPem,
    async close() {
      closing.abort(new Error('webhook server stopping'));
      await server.close();
    },
  };
}
