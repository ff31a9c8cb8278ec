// The built-in signer for `kubernetes.io/kube-apiserver-client`, a BuiltinController: it lists and
// watches CSRs in the store, and for each Approved, non-Denied, non-Failed, unsigned CSR either
// issues a certificate from the server's CA or appends a Failed condition. Writes go straight to the store with the read revision as precondition; a conflict
// re-reads and decides again.

import { rfc3339 } from '../../api/conditions.js';
import type { KubeObject } from '../../api/meta.js';
import { storageKey, storagePrefix, type BuiltinController } from '../pipeline.js';
import { StoreConflictError, StoreNotFoundError, type Store, type WatchSubscription } from '../storage/types.js';
import type { Clock } from '../../util/clock.js';
import { realClock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { issueCertificate, parseCertificate, type SigningCa } from '../../util/x509.js';
import { CERTIFICATES_GROUP, CSR_RESOURCE } from './csr-admission.js';
import { conditionsOf, statusOf } from './csr-validation.js';
import { decideSigning } from './signer-policy.js';

export interface CsrSignerOptions {
  store: Store;
  /** Only the signing CA is used (certificate + key). */
  pki: { signingCa: SigningCa };
  /** `--cluster-signing-duration`; default 1 year. Small values (e.g. 20 s) are accepted for tests. */
  clusterSigningDurationMs?: number;
  log: Logger;
  clock?: Clock;
  /** Conflict retries per CSR before giving up until the next event. Default 5. */
  maxConflictRetries?: number;
}

const YEAR_MS = 365 * 24 * 3600_000;

export function createCsrSigner(opts: CsrSignerOptions): BuiltinController {
  const clock = opts.clock ?? realClock;
  const log = opts.log.child({ controller: 'csr-signer' });
  const duration = opts.clusterSigningDurationMs ?? YEAR_MS;
  if (!(Number.isFinite(duration) && duration > 0)) throw new Error('clusterSigningDurationMs must be a positive number');
  const maxRetries = opts.maxConflictRetries ?? 5;
  const store = opts.store;
  const prefix = storagePrefix(CERTIFICATES_GROUP, CSR_RESOURCE);
  const caNotAfter = parseCertificate(opts.pki.signingCa.certPem).notAfter.getTime();

  const queue = new Set<string>();
  let running = false;
  let stopped = false;
  let sub: WatchSubscription | undefined;

  /** One attempt on one CSR; returns true when it should be retried (lost a race). */
  const processOnce = async (name: string): Promise<boolean> => {
    const key = storageKey(CERTIFICATES_GROUP, CSR_RESOURCE, '', name);
    const cur = store.get(key);
    if (!cur) return false;
    const csr = cur.object;
    const now = clock.now();
    const d = decideSigning(csr, now, duration, caNotAfter);
    if (d.action === 'ignore') {
      if (d.why === 'the signing CA has expired') log.warn('not signing: the signing CA has expired', { key: name });
      return false;
    }
    if (d.action === 'fail') {
      const next = withStatus(csr, { ...statusOf(csr), conditions: [...conditionsOf(csr), { type: 'Failed', status: 'True', reason: 'SignerValidationFailure', message: d.message, lastUpdateTime: rfc3339(new Date(now)), lastTransitionTime: rfc3339(new Date(now)) }] });
      return write(key, cur.revision, next, name, 'failed', { message: d.message });
    }
    const certPem = await issueCertificate({
      ca: opts.pki.signingCa,
      subject: { fromCsrDer: d.request.der },
      notBefore: d.notBefore,
      notAfter: d.notAfter,
      keyUsages: d.keyUsages,
      extKeyUsages: d.extKeyUsages,
      ...(d.request.dnsNames.length ? { dnsNames: d.request.dnsNames } : {}),
      ...(d.request.ipAddresses.length ? { ipAddresses: d.request.ipAddresses } : {}),
    });
    const next = withStatus(csr, { ...statusOf(csr), certificate: Buffer.from(certPem, 'utf8').toString('base64') });
    return write(key, cur.revision, next, name, 'signed', { notAfter: d.notAfter.toISOString() });
  };

  const write = (key: string, revision: number, next: KubeObject, name: string, what: string, fields: Record<string, unknown> = {}): boolean => {
    try {
      store.update(key, next, revision);
      log.info(`csr ${what}`, { key: name, ...fields });
      return false;
    } catch (err) {
      if (err instanceof StoreConflictError) return true;
      if (err instanceof StoreNotFoundError) return false;
      throw err;
    }
  };

  const drain = async (): Promise<void> => {
    if (running) return;
    running = true;
    try {
      while (!stopped && queue.size > 0) {
        const name = queue.values().next().value as string;
        queue.delete(name);
        try {
          let retries = 0;
          while (!stopped && (await processOnce(name))) {
            if (++retries >= maxRetries) {
              log.warn('csr update kept conflicting; waiting for the next event', { key: name });
              break;
            }
          }
        } catch (err) {
          log.error('csr signing failed', { key: name, err });
        }
      }
    } finally {
      running = false;
    }
  };

  const enqueue = (name: string): void => {
    queue.add(name);
    void drain();
  };

  const listAndWatch = (): void => {
    if (stopped) return;
    const listed = store.list(prefix);
    for (const item of listed.items) {
      if (decideSigning(item.object, clock.now(), duration, caNotAfter).action !== 'ignore') enqueue(item.object.metadata.name ?? '');
    }
    sub = store.watch(prefix, {
      fromRevision: listed.revision,
      onEvent: (ev) => {
        if (ev.type !== 'DELETED' && ev.object.metadata.name) enqueue(ev.object.metadata.name);
      },
      onClose: (reason) => {
        if (stopped) return;
        log.warn('csr watch closed; re-listing', { reason });
        clock.setTimeout(() => {
          try {
            listAndWatch();
          } catch (err) {
            log.error('csr re-list failed', { err });
          }
        }, 100);
      },
    });
  };

  return {
    name: 'csr-signer',
    start(signal: AbortSignal): void {
      signal.addEventListener('abort', () => {
        stopped = true;
        sub?.close();
        sub = undefined;
      }, { once: true });
      if (signal.aborted) return;
      listAndWatch();
    },
  };
}

function withStatus(csr: KubeObject, status: unknown): KubeObject {
  const next = structuredClone(csr);
  next.status = status;
  return next;
}
