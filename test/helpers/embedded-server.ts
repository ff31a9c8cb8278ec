// Starts the embedded API server for a test: temp data dir, 127.0.0.1 port 0, admin kubeconfig,
// a client-node KubeConfig; stop() closes it and (unless kept) removes the data dir; restart()
// starts again on the same directory.

import 'reflect-metadata';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startEmbeddedApiServer, type EmbeddedApiServer, type EmbeddedApiServerOptions } from '../../src/apiserver/embedded.js';
import type { Store } from '../../src/apiserver/storage/types.js';
import { createLogger, nullLogger, type Logger } from '../../src/util/logger.js';
import { testLogLevel } from './test-log.js';

export interface TestApiServerOptions extends Partial<Omit<EmbeddedApiServerOptions, 'log' | 'dataDir'>> {
  /** Reuse this data directory (default: a new temp dir). */
  dataDir?: string;
  /** Keep the data dir on stop() (default: removed unless dataDir was given). */
  keepDataDir?: boolean;
  /** Log to stderr at this level (default: silent; env OCM_TS_TEST_LOG=debug|info also enables it). */
  logLevel?: 'debug' | 'info' | 'warn' | 'error';
  log?: Logger;
}

export interface TestApiServer {
  url: string;
  port: number;
  dataDir: string;
  adminKubeconfigPath: string;
  /** KubeConfig loaded from the admin kubeconfig (system:masters client certificate). */
  kubeConfig: KubeConfig;
  store: Store;
  server: EmbeddedApiServer;
  /** Stop, then start again on the same data dir (new port unless `listen` was given). */
  restart(): Promise<TestApiServer>;
  stop(): Promise<void>;
}

function loggerFor(opts: TestApiServerOptions): Logger {
  if (opts.log) return opts.log;
  const level = opts.logLevel ?? testLogLevel();
  return level ? createLogger({ level }) : nullLogger();
}

export async function startTestApiServer(opts: TestApiServerOptions = {}): Promise<TestApiServer> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await mkdtemp(join(tmpdir(), 'ocm-ts-apiserver-')));
  const { keepDataDir, logLevel, log: _log, dataDir: _d, ...rest } = opts;
  void logLevel; void _log; void _d;
  const server = await startEmbeddedApiServer({
    ...rest,
    dataDir,
    listen: opts.listen ?? { host: '127.0.0.1', port: 0 },
    log: loggerFor(opts),
    timings: { futureWaitMs: 500, ...opts.timings },
  });
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(server.adminKubeconfigPath);
  // A temp dir we created is removed on stop unless kept; a given dir only when keepDataDir === false.
  const removeOnStop = ownDir ? !keepDataDir : keepDataDir === false;
  let stopped = false;
  const stop = async (removeDir: boolean): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await server.close();
    if (removeDir) await rm(dataDir, { recursive: true, force: true });
  };
  return {
    url: server.url,
    port: Number(new URL(server.url).port),
    dataDir,
    adminKubeconfigPath: server.adminKubeconfigPath,
    kubeConfig,
    store: server.store,
    server,
    async restart() {
      await stop(false);
      return startTestApiServer({ ...opts, dataDir, keepDataDir: removeOnStop ? false : true });
    },
    stop: () => stop(removeOnStop),
  };
}
