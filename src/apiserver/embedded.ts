// Assembly of the embedded API server on a data directory: SQLite store at DIR/state.db, PKI under
// DIR/pki/, admin kubeconfig at DIR/admin.kubeconfig, authn/authz stack, built-in controllers,
// periodic compaction. Used by `ocm-ts apiserver` and by the hub command.

import { join } from 'node:path';
import { realClock, type Clock } from '../util/clock.js';
import { tightenDataDir } from '../util/private-files.js';
import type { Logger } from '../util/logger.js';
import {
  accessReviewResources, bootstrapPolicyObjects, createAuthenticator, createAuthorizer, createServiceAccountTokens, rbacEscalationAdmission,
  rbacStrategyOverrides,
} from './auth/index.js';
import { tokenReviewResource } from './auth/token-review.js';
import type { ConnectionLimits } from './http/connection-limits.js';
import type { ServerTimings } from './http/server-context.js';
import type { AdmissionPlugin, BuiltinController } from './pipeline.js';
import { ensureAdminKubeconfig, ensurePki, type Pki } from './pki/index.js';
import type { BuiltinStrategyOverrides } from './registry/builtin-resources.js';
import type { VirtualResource } from './registry/types.js';
import { startApiServer } from './server.js';
import { openSqliteStore } from './storage/sqlite-store.js';
import { StoreClosedError } from './storage/store-errors.js';
import type { Store } from './storage/types.js';
import { schemaOps } from './registry/schema-ops.js';
import { csrExtensions } from './registry/csr-extensions.js';
import type { InflightLimits } from './http/inflight-limit.js';

/** `iss` of service-account tokens issued by TokenRequest (and accepted by the authenticator). */
const SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc';

export interface ListenAddress {
  host: string;
  port: number;
}

export interface EmbeddedApiServerOptions {
  dataDir: string;
  /** Default 127.0.0.1:6443; port 0 = a free port. */
  listen?: ListenAddress;
  log: Logger;
  admission?: AdmissionPlugin[];
  extraControllers?: BuiltinController[];
  /** Resync period of the server's own controllers (garbage collector...), default 5 s. */
  controllerResyncMs?: number;
  /** Default TTL of certificates issued by the CSR signer (default 1 year). */
  clusterSigningDurationMs?: number;
  /** Serve CSRs as certificates.k8s.io/v1beta1 only, like kube-apiserver before 1.19. */
  serveV1beta1Csr?: boolean;
  /** Static bearer tokens (`--token-auth-file` CSV). */
  tokenFile?: string;
  clock?: Clock;
  timings?: Partial<ServerTimings>;
  /** Compaction interval (default 60 s). */
  compactIntervalMs?: number;
  /** Storage retention (default: 1000 revisions and 5 minutes). */
  retention?: { minRevisions: number; minAgeMs: number };
  extraSans?: string[];
  /** Events older than this are deleted (default 1 h). */
  eventTtlMs?: number;
  /** Connection caps and transport timeouts (see startApiServer). */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Largest list response in stored bytes (see startApiServer). */
  maxListBytes?: number;
  /** Requests served at once (see startApiServer). */
  inflightLimits?: Partial<InflightLimits>;
}

export interface EmbeddedApiServer {
  url: string;
  adminKubeconfigPath: string;
  store: Store;
  pki: Pki;
  close(): Promise<void>;
}

/** What the server (state.db and its side files, pki/) and the commands built on it (kubeconfigs) write in the data directory. */
function isServerFile(name: string): boolean {
  return name.startsWith('state.db') || name === 'pki' || name.includes('.kubeconfig');
}

export async function startEmbeddedApiServer(opts: EmbeddedApiServerOptions): Promise<EmbeddedApiServer> {
  const clock = opts.clock ?? realClock;
  const log = opts.log;
  const listen = opts.listen ?? { host: '127.0.0.1', port: 6443 };
  // The data directory is 0700 and what the server and the hub write in it 0600, on every start:
  // a directory left by an older version or a permissive umask is tightened before use.
  await tightenDataDir(opts.dataDir, isServerFile);
  const pki = await ensurePki(join(opts.dataDir, 'pki'), { clock, log, ...(opts.extraSans ? { extraSans: opts.extraSans } : {}) });
  const store = openSqliteStore({ path: join(opts.dataDir, 'state.db'), log, clock, ...(opts.retention ? { retention: opts.retention } : {}) });
  let stopCompactor: (() => void) | undefined;
  try {
    const saTokens = createServiceAccountTokens({ keyPem: pki.serviceAccountKeyPem, issuer: SERVICE_ACCOUNT_ISSUER, store, clock });
    const authenticator = createAuthenticator({
      store, pki, clock, log, serviceAccountTokens: saTokens, ...(opts.tokenFile ? { tokenFile: opts.tokenFile } : {}),
    });
    const authorizer = createAuthorizer(store, { log });
    const csr = csrExtensions({ store, pki, clock, log, ...(opts.clusterSigningDurationMs ? { clusterSigningDurationMs: opts.clusterSigningDurationMs } : {}) });
    const virtualResources: VirtualResource[] = [...accessReviewResources(authorizer), tokenReviewResource(authenticator)];
    const strategies: BuiltinStrategyOverrides = { ...rbacStrategyOverrides(), ...csr.strategies };
    const server = await startApiServer({
      store,
      tls: { key: pki.servingKeyPem, cert: pki.servingCertPem, clientCa: pki.clientCaPem },
      host: listen.host,
      port: listen.port,
      log,
      authenticator,
      authorizer,
      admission: [rbacEscalationAdmission({ authorizer }), ...csr.admission, ...(opts.admission ?? [])],
      controllers: [...csr.controllers, ...(opts.extraControllers ?? [])],
      strategies,
      ...(opts.serveV1beta1Csr ? { csrVersion: 'v1beta1' as const } : {}),
      ...(opts.controllerResyncMs !== undefined ? { controllerResyncMs: opts.controllerResyncMs } : {}),
      subresources: {
        '/serviceaccounts': [{
          name: 'token', mode: 'create', verbs: ['create'],
          kind: { group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest' },
          create: (body, c) => saTokens.handleTokenRequest(body, c.namespace, c.name),
        }],
      },
      virtualResources,
      bootstrapObjects: bootstrapPolicyObjects(),
      schemaOps: schemaOps(),
      caPem: pki.caPem,
      clock,
      ...(opts.eventTtlMs !== undefined ? { eventTtlMs: opts.eventTtlMs } : {}),
      ...(opts.timings ? { timings: opts.timings } : {}),
      ...(opts.connectionLimits ? { connectionLimits: opts.connectionLimits } : {}),
      ...(opts.maxListBytes !== undefined ? { maxListBytes: opts.maxListBytes } : {}),
      ...(opts.inflightLimits ? { inflightLimits: opts.inflightLimits } : {}),
    });
    authorizer.start();
    const adminKubeconfigPath = await ensureAdminKubeconfig(opts.dataDir, server.url, pki, { clock });
    const interval = setInterval(() => {
      store.compactInSteps().then(
        (removed) => {
          if (removed > 0) log.debug('compacted storage', { rows: removed });
        },
        (err: unknown) => {
          if (!(err instanceof StoreClosedError)) log.error('compaction failed', { err });
        },
      );
    }, opts.compactIntervalMs ?? 60_000);
    interval.unref();
    stopCompactor = () => clearInterval(interval);
    let closing: Promise<void> | undefined;
    return {
      url: server.url,
      adminKubeconfigPath,
      store,
      pki,
      close(): Promise<void> {
        closing ??= (async () => {
          stopCompactor?.();
          await server.close();
          authorizer.stop();
          store.close();
        })();
        return closing;
      },
    };
  } catch (err) {
    stopCompactor?.();
    store.close();
    throw err;
  }
}
