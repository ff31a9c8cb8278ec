// Start-up gate shared by controllers: wait for an informer's first list, treating an abort of the
// caller's signal as a normal stop rather than an error.
import type { Informer } from './types.js';
import type { KubeObject } from '../api/meta.js';

/** Resolves true once synced, false when the signal aborted first; other failures are thrown. */
export async function waitSyncedUnlessAborted<T extends KubeObject>(informer: Informer<T>, signal: AbortSignal): Promise<boolean> {
  try {
    await informer.waitForSync(signal);
    return true;
  } catch (err) {
    if (signal.aborted) return false;
    throw err;
  }
}
