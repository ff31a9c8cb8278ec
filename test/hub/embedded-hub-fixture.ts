// The embedded hub (`ocm-ts hub --data-dir`) in a temp dir with fast controller timings; stop()
// aborts it, closes it and removes the dir.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedHub, type EmbeddedHub } from '../../src/embedded/embedded-hub.js';
import { resolveHubOptions } from '../../src/hub/options.js';
import { realClock } from '../../src/util/clock.js';
import { nullLogger } from '../../src/util/logger.js';
import { FAST_TIMINGS } from './hub-fixture.js';

export interface EmbeddedHubFixture {
  hub: EmbeddedHub;
  stop(): Promise<void>;
}

export async function startEmbeddedHubFixture(prefix: string): Promise<EmbeddedHubFixture> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const ac = new AbortController();
  const hub = await startEmbeddedHub({
    dataDir: dir,
    apiserverListen: { host: '127.0.0.1', port: 0 },
    bootstrapTokenTtlMs: 3_600_000,
    hubOptions: resolveHubOptions({ timings: FAST_TIMINGS }).options,
    log: nullLogger(),
    clock: realClock,
    signal: ac.signal,
  });
  return {
    hub,
    async stop() {
      ac.abort();
      await hub.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
