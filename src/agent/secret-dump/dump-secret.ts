// DumpSecret and `HubKubeconfigSecretController`: copy every key of
// the hub kubeconfig secret into files of the hub kubeconfig dir (mode 0600, dir 0700), rewriting
// only files whose bytes differ. Files of keys removed from the secret are never deleted. Modes are
// enforced on every pass, also for a directory and files an older version left readable.

import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Secret } from '../../api/core.js';
import { isNotFound } from '../../client/errors.js';
import { createController } from '../../client/controller.js';
import type { Informer, ResourceClient } from '../../client/types.js';
import type { Clock } from '../../util/clock.js';
import type { Logger } from '../../util/logger.js';
import { ensurePrivateDirSync, ensurePrivateFileSync, PRIVATE_FILE_MODE } from '../../util/private-files.js';

export interface DumpSecretOptions {
  secrets: ResourceClient<Secret>;
  namespace: string;
  name: string;
  dir: string;
  signal?: AbortSignal;
}

/** Returns the names of the files written. */
export async function dumpSecret(o: DumpSecretOptions): Promise<string[]> {
  let secret: Secret;
  try {
    secret = await o.secrets.get(o.name, o.signal ? { signal: o.signal } : {});
  } catch (err) {
    if (isNotFound(err)) return [];
    throw new Error(`unable to get secret ${o.namespace}/${o.name} : ${(err as Error).message}`, { cause: err });
  }
  return writeSecretFiles(secret.data ?? {}, o.dir);
}

/** Writes base64 `data` entries as files of `dir`; pure file I/O, exported for tests. */
export function writeSecretFiles(data: Readonly<Record<string, string>>, dir: string): string[] {
  try {
    ensurePrivateDirSync(dir);
  } catch (err) {
    throw new Error(`unable to create dir ${JSON.stringify(dir)} : ${(err as Error).message}`, { cause: err });
  }
  // Every file of the dir, also those that need no rewrite or whose key left the secret.
  for (const name of readdirSync(dir)) {
    try {
      ensurePrivateFileSync(join(dir, name));
    } catch (err) {
      throw new Error(`unable to make file ${JSON.stringify(join(dir, name))} private: ${(err as Error).message}`, { cause: err });
    }
  }
  const written: string[] = [];
  for (const [key, b64] of Object.entries(data)) {
    const file = join(dir, key);
    const bytes = Buffer.from(b64, 'base64');
    let current: Buffer | undefined;
    try {
      current = readFileSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`unable to read file ${JSON.stringify(file)}: ${(err as Error).message}`, { cause: err });
    }
    if (current !== undefined && current.equals(bytes)) continue;
    try {
      writeFileSync(file, bytes, { mode: PRIVATE_FILE_MODE });
      ensurePrivateFileSync(file);
    } catch (err) {
      throw new Error(`unable to write file ${JSON.stringify(file)}: ${(err as Error).message}`, { cause: err });
    }
    written.push(key);
  }
  return written;
}

export interface HubKubeconfigSecretControllerOptions {
  /** Secrets of the agent's namespace: the files are written from its cache. */
  secretInformer: Informer<Secret>;
  namespace: string;
  name: string;
  dir: string;
  resyncMs: number;
  log: Logger;
  clock?: Clock;
  /** Called after files changed (tests, metrics). */
  onDumped?(files: string[]): void;
}

export function createHubKubeconfigSecretController(o: HubKubeconfigSecretControllerOptions): { run(signal: AbortSignal): Promise<void> } {
  const log = o.log.child({ controller: 'HubKubeconfigSecretController' });
  const controller = createController({
    name: 'HubKubeconfigSecretController',
    log: o.log,
    ...(o.clock ? { clock: o.clock } : {}),
    resyncMs: o.resyncMs,
    resyncKeys: () => [o.name],
    // The watched cache holds the secret each event is about: reading it saves the round trip that
    // a GET per event and per resync would cost (a joining agent waits for this one).
    waitForSync: [o.secretInformer],
    reconcile: async () => {
      const secret = o.secretInformer.lister.get(o.name, o.namespace);
      const files = secret ? writeSecretFiles(secret.data ?? {}, o.dir) : [];
      if (files.length > 0) {
        log.info('hub kubeconfig files updated', { dir: o.dir, files });
        o.onDumped?.(files);
      }
    },
  });
  const ours = (s: Secret): boolean => s.metadata.namespace === o.namespace && s.metadata.name === o.name;
  o.secretInformer.addHandlers({
    onAdd: (s) => ours(s) && controller.enqueue(o.name),
    onUpdate: (_p, s) => ours(s) && controller.enqueue(o.name),
    onDelete: (s) => ours(s) && controller.enqueue(o.name),
  });
  return {
    async run(signal) {
      controller.enqueue(o.name);
      await controller.run(signal);
    },
  };
}
