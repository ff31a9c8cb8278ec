// The sync logic of AddOnRegistrationController, with its I/O injected so that it can be
// table-tested: ensure the kubeClient driver field, then start one credential controller
// (`ClientCertController@addon:...`) per distinct registration config and stop (and delete the
// secret of) every config that is no longer wanted or whose addon is gone.

import type { ManagedClusterAddOn, RegistrationConfig } from '../../api/addon.js';
import type { Logger } from '../../util/logger.js';
import { aggregate, toError } from '../../util/errors.js';
import { guardedPatch } from '../../client/patch-writer.js';
import { addonInstallNamespace, isHostedAddon } from './addon-helpers.js';
import { registrationConfigs, type AddonRegistration } from './registration-config.js';

export const REGISTRATION_DEFAULT_KEY = 'basecontroller-default-key';

export type KubeClientDriver = 'csr' | 'token' | '';

/** What a registration's credential controller is started with. */
export interface StartRegistrationInput {
  clusterName: string;
  addonName: string;
  config: AddonRegistration;
  /** Aborted when the registration is stopped (or the controller ends). */
  signal: AbortSignal;
}

/**
 * Starts the credential controller of one registration; throws when it cannot (e.g. driver fork
 * errors). Must not block.
 */
export type StartRegistration = (input: StartRegistrationInput) => void;

export interface RegistrationSyncDeps {
  clusterName: string;
  /** `--addon-kubeclient-registration-auth`. */
  kubeClientDriver: KubeClientDriver;
  /** Addon from the hub cache (undefined = not found). */
  getAddon(name: string): ManagedClusterAddOn | undefined;
  patchAddonStatus(name: string, patch: Record<string, unknown>, signal: AbortSignal): Promise<void>;
  /** Delete the credential secret on the spoke (or the management cluster when hosted); NotFound is success. */
  deleteSecret(namespace: string, name: string, hosted: boolean, signal: AbortSignal): Promise<void>;
  startRegistration: StartRegistration;
  enqueue(key: string): void;
  log: Logger;
}

interface Running {
  config: AddonRegistration;
  stop: AbortController;
}

/** Pure: the addon with the first kubeClient registration's driver set, or undefined when already so. */
export function withKubeClientDriver(addon: ManagedClusterAddOn, driver: KubeClientDriver): ManagedClusterAddOn | undefined {
  const regs = addon.status?.registrations ?? [];
  const i = regs.findIndex((r) => r.type === 'kubeClient');
  if (i < 0) return undefined;
  const reg = regs[i]!;
  if (reg.kubeClient && (reg.kubeClient.driver ?? '') === driver) return undefined;
  const next = structuredClone(addon);
  const target: RegistrationConfig = next.status!.registrations![i]!;
  target.kubeClient = { ...(target.kubeClient ?? {}), ...(driver ? { driver } : {}) };
  if (!driver) delete target.kubeClient.driver;
  return next;
}

export interface RegistrationSync {
  sync(key: string, signal: AbortSignal): Promise<void>;
  /** addon → config hashes currently running (tests, diagnostics). */
  state(): Map<string, AddonRegistration[]>;
  /** Stops every running registration without deleting secrets (controller shutdown). */
  stopAll(): void;
}

export function createRegistrationSync(d: RegistrationSyncDeps): RegistrationSync {
  const running = new Map<string, Map<string, Running>>();

  const stopOne = async (addonName: string, r: Running, signal: AbortSignal): Promise<void> => {
    r.stop.abort();
    await d.deleteSecret(r.config.installationNamespace, r.config.secretName, r.config.agentRunningOutsideManagedCluster, signal);
    d.log.info('addon registration stopped', { addon: addonName, secret: `${r.config.installationNamespace}/${r.config.secretName}` });
  };

  const cleanup = async (addonName: string, signal: AbortSignal): Promise<void> => {
    const cached = running.get(addonName);
    if (!cached) return;
    const errors: Error[] = [];
    for (const [hash, r] of [...cached]) {
      try {
        await stopOne(addonName, r, signal);
        cached.delete(hash);
      } catch (err) {
        errors.push(toError(err));
      }
    }
    const err = aggregate(errors);
    if (err) throw err;
    running.delete(addonName);
  };

  const syncAddon = async (addonName: string, signal: AbortSignal): Promise<void> => {
    const addon = d.getAddon(addonName);
    if (!addon) return cleanup(addonName, signal);
    if (addon.metadata.deletionTimestamp) return; // keep secrets: the addon agent may need them to clean up

    const withDriver = withKubeClientDriver(addon, d.kubeClientDriver);
    if (withDriver) {
      const patch = guardedPatch(addon, 'status', withDriver.status);
      if (patch) {
        await d.patchAddonStatus(addonName, patch, signal);
        return; // the informer update re-triggers
      }
    }

    const { configs, skipped } = registrationConfigs({
      clusterName: d.clusterName,
      addonName,
      registrations: addon.status?.registrations,
      installationNamespace: addonInstallNamespace(addon),
      hosted: isHostedAddon(addon),
    });
    for (const s of skipped) d.log.debug(s.reason, { addon: addonName, index: s.index });
    const desired = new Map(configs.map((c) => [c.hash, c]));
    const cached = running.get(addonName) ?? new Map<string, Running>();

    const stopErrors: Error[] = [];
    for (const [hash, r] of [...cached]) {
      if (desired.has(hash)) continue;
      try {
        await stopOne(addonName, r, signal);
        cached.delete(hash);
      } catch (err) {
        stopErrors.push(toError(err));
      }
    }
    const stopErr = aggregate(stopErrors);
    if (stopErr) {
      if (cached.size > 0) running.set(addonName, cached);
      throw stopErr;
    }

    const startErrors: Error[] = [];
    for (const [hash, config] of desired) {
      if (cached.has(hash)) continue;
      const stop = new AbortController();
      try {
        d.startRegistration({ clusterName: d.clusterName, addonName, config, signal: stop.signal });
        cached.set(hash, { config, stop });
        d.log.info('addon registration started', { addon: addonName, type: config.registration.type, secret: `${config.installationNamespace}/${config.secretName}` });
      } catch (err) {
        stop.abort();
        startErrors.push(toError(err));
      }
    }
    if (cached.size > 0) running.set(addonName, cached);
    else running.delete(addonName);
    const startErr = aggregate(startErrors);
    if (startErr) throw startErr;
  };

  return {
    async sync(key, signal) {
      if (key !== REGISTRATION_DEFAULT_KEY) return syncAddon(key, signal);
      const errors: Error[] = [];
      for (const addonName of [...running.keys()]) {
        if (d.getAddon(addonName)) {
          d.enqueue(addonName);
          continue;
        }
        try {
          await cleanup(addonName, signal);
        } catch (err) {
          errors.push(toError(err));
        }
      }
      const err = aggregate(errors);
      if (err) throw err;
    },
    state() {
      return new Map([...running].map(([k, v]) => [k, [...v.values()].map((r) => r.config)]));
    },
    stopAll() {
      for (const m of running.values()) for (const r of m.values()) r.stop.abort();
    },
  };
}
