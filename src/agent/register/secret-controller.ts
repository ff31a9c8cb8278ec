// Register secret controller, generic over a RegisterDriver: BootstrapController (bootstrap phase),
// RegisterController (main phase) and, for addons, ClientCertController@addon. One queue key; the
// secret is read live (as OCM does: a stale copy could make the driver request a second credential),
// except while the driver awaits a credential it requested: then it is only the base the credential
// is written into, and the cached copy saves a round trip when the certificate arrives (a stale copy
// fails the save, retried from a live read); a secret the driver produced but that failed to save is
// kept (`pending`) and its save retried without running the driver again (which would create a
// second CSR); the condition is written only after the save succeeded.

import type { Condition } from '../../api/meta.js';
import type { Secret } from '../../api/core.js';
import { isNotFound } from '../../client/errors.js';
import { createController } from '../../client/controller.js';
import type { Syncable } from '../../client/wait-synced.js';
import type { Controller, Informer, ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import type { RegisterDriver, StatusUpdater } from './driver.js';
import { errorMessage } from '../../util/errors.js';
import { onEveryChange } from '../../client/event-handlers.js';

const REGISTER_QUEUE_KEY = 'key';

export interface RegisterSecretControllerOptions {
  name: string;
  secretNamespace: string;
  secretName: string;
  /** Keys forced into the saved secret (kubeconfig, cluster-name, agent-name), computed once. */
  additionalData: Readonly<Record<string, Buffer>>;
  driver: RegisterDriver;
  statusUpdater: StatusUpdater;
  /** Secrets of the secret's namespace, on the cluster that holds it. */
  secrets: ResourceClient<Secret>;
  /** Secret informer of that namespace (events filtered to the one secret). */
  secretInformer: Informer<Secret>;
  resyncMs: number;
  log: Logger;
  clock?: Clock;
  /** Caches to wait for before the first sync (the driver's and the secret's). */
  waitForSync?: readonly Syncable[];
}

export interface RegisterSecretController {
  readonly controller: Controller;
  /** Trigger a sync (driver informer events). */
  enqueue(): void;
  run(signal: AbortSignal): Promise<void>;
  /** Exposed for tests: one sync; returns when to look again, if sooner than any change. */
  sync(signal: AbortSignal): Promise<number | undefined>;
}

/**
 * When to sync again for a certificate's rotation time: only when that comes before the next resync
 * (a long-lived certificate just waits for the resync), and never sooner than a second.
 */
export function recheckDelay(recheckAfterMs: number | undefined, resyncMs: number): number | undefined {
  if (recheckAfterMs === undefined) return undefined;
  if (resyncMs > 0 && recheckAfterMs >= resyncMs) return undefined;
  return Math.max(1000, recheckAfterMs);
}

export function createRegisterSecretController(o: RegisterSecretControllerOptions): RegisterSecretController {
  const log = o.log.child({ controller: o.name });
  const ref = `${o.secretNamespace}/${o.secretName}`;
  let pending: Secret | undefined;
  let pendingCondition: Condition | undefined;

  const absent = (): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { namespace: o.secretNamespace, name: o.secretName } });
  const read = async (signal: AbortSignal): Promise<Secret> => {
    if (pending === undefined && o.driver.awaitingCredential?.() === true) {
      const cached = o.secretInformer.lister.get(o.secretName, o.secretNamespace);
      return cached ? structuredClone(cached) : absent();
    }
    try {
      return await o.secrets.get(o.secretName, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw new Error(`unable to get secret ${JSON.stringify(ref)}: ${errorMessage(err)}`, { cause: err });
      return absent();
    }
  };

  /** Returns when to look again although nothing changes (the certificate's rotation time). */
  const sync = async (signal: AbortSignal): Promise<number | undefined> => {
    const secret = await read(signal);
    secret.data ??= {};

    if (pending === undefined) {
      const out = await o.driver.process(o.name, secret, o.additionalData, signal);
      if (out.condition !== undefined && (out.error !== undefined || out.secret === undefined)) {
        await o.statusUpdater(out.condition, signal);
      }
      if (out.error !== undefined) throw out.error;
      if (out.secret === undefined) return out.recheckAfterMs;
      const next: Secret = { ...out.secret, data: { ...(out.secret.data ?? {}) } };
      for (const [k, v] of Object.entries(o.additionalData)) next.data![k] = v.toString('base64');
      pending = next;
      pendingCondition = out.condition;
    } else {
      // Retrying a failed save: aim it at the secret as it is now (OCM reuses the stale
      // resourceVersion, which turns one conflict into a retry loop).
      const rv = secret.metadata.resourceVersion;
      const meta = { ...pending.metadata };
      if (rv === undefined) delete meta.resourceVersion;
      else meta.resourceVersion = rv;
      pending = { ...pending, metadata: meta };
    }

    try {
      if (pending.metadata.resourceVersion === undefined || pending.metadata.resourceVersion === '') {
        await o.secrets.create(pending, { signal });
      } else {
        await o.secrets.update(pending, { signal });
      }
    } catch (err) {
      // Keep `pending` for the retry, but a condition is only written with the first attempt's save.
      pendingCondition = undefined;
      throw new Error(`unable to save secret ${JSON.stringify(ref)}: ${errorMessage(err)}`, { cause: err });
    }
    log.info(`Secret ${ref} for ${o.name} is updated`, { reason: 'SecretSave' });
    pending = undefined;
    const cond = pendingCondition;
    pendingCondition = undefined;
    if (cond !== undefined) await o.statusUpdater(cond, signal);
  };

  const controller = createController({
    name: o.name,
    log: o.log,
    ...(o.clock ? { clock: o.clock } : {}),
    resyncMs: o.resyncMs,
    ...(o.waitForSync ? { waitForSync: o.waitForSync } : {}),
    resyncKeys: () => [REGISTER_QUEUE_KEY],
    reconcile: async (_key, signal) => {
      const requeueAfterMs = recheckDelay(await sync(signal), o.resyncMs);
      return requeueAfterMs !== undefined ? { requeueAfterMs } : undefined;
    },
  });

  const isOurs = (s: Secret): boolean => s.metadata.namespace === o.secretNamespace && s.metadata.name === o.secretName;
  onEveryChange(o.secretInformer, (s) => {
    if (isOurs(s)) controller.enqueue(REGISTER_QUEUE_KEY);
  });

  return {
    controller,
    enqueue: () => controller.enqueue(REGISTER_QUEUE_KEY),
    async run(signal) {
      controller.enqueue(REGISTER_QUEUE_KEY);
      await controller.run(signal);
    },
    sync,
  };
}
