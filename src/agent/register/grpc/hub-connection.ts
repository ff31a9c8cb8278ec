// The agent's gRPC channel to the hub, built from an OCM gRPC config file. The config names the
// client certificate and key as files that the agent itself rewrites when it rotates its
// certificate, so the channel is built again whenever one of those files changed: each new
// subscription and publish after a rotation presents the new certificate, the way the REST client
// re-reads its kubeconfig's certificate files.

import { statSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { connectCloudEvents, type CloudEventsClient } from '../../../grpc/client.js';
import { loadGrpcConfig, type GrpcClientConfig } from '../../../grpc/grpc-config.js';
import { isPlainObject } from '../../../util/merge-patch.js';
import { errorMessage } from '../../../util/errors.js';
import { parseYaml } from '../../../util/yaml.js';
import type { HubConfigSource } from './hub-config-template.js';

export interface HubConnection {
  /** The channel for the files as they are now. */
  current(): CloudEventsClient;
  /** The server URL (host:port) the config names. */
  readonly url: string;
  close(): void;
}

export class GrpcHubConfigError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'GrpcHubConfigError';
  }
}

/** The files a config reads (itself, and the certificate, key and token files it names). */
function filesOf(path: string): string[] {
  const files = [path];
  try {
    const doc: unknown = parseYaml(readFileSync(path, 'utf8'));
    if (isPlainObject(doc)) {
      for (const k of ['caFile', 'clientCertFile', 'clientKeyFile', 'tokenFile']) {
        const v = doc[k];
        if (typeof v === 'string' && v !== '') files.push(v);
      }
    }
  } catch {
    // An unreadable config is reported by the load itself.
  }
  return files;
}

function stampOf(files: readonly string[]): string {
  return files
    .map((f) => {
      try {
        const s = statSync(f, { bigint: true });
        return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

/** Loads an OCM gRPC config file; the errors name the file. */
function loadHubGrpcConfig(path: string, what: string): GrpcClientConfig {
  try {
    return loadGrpcConfig(path);
  } catch (err) {
    throw new GrpcHubConfigError(`failed to load ${what} from file ${JSON.stringify(path)}: ${errorMessage(err)}`, { cause: err });
  }
}

/** The parts of a config that the hub secret's `config.yaml` copies: URL, CA and keepalive as written. */
export function hubConfigSource(path: string, what: string): HubConfigSource {
  const config = loadHubGrpcConfig(path, what);
  let keepAliveConfig: Record<string, unknown> | undefined;
  try {
    const doc: unknown = parseYaml(readFileSync(path, 'utf8'));
    if (isPlainObject(doc) && isPlainObject(doc['keepAliveConfig'])) keepAliveConfig = doc['keepAliveConfig'];
  } catch {
    keepAliveConfig = undefined;
  }
  return { url: config.url, caData: config.caPem !== undefined ? Buffer.from(config.caPem, 'utf8') : undefined, keepAliveConfig };
}

export function openHubConnection(o: { configFile: string; what: string; connect?: (c: GrpcClientConfig) => CloudEventsClient }): HubConnection {
  const connect = o.connect ?? ((c: GrpcClientConfig) => connectCloudEvents(c));
  const files = filesOf(o.configFile);
  let stamp = stampOf(files);
  const first = loadHubGrpcConfig(o.configFile, o.what);
  let client = connect(first);
  let closed = false;
  return {
    url: first.url,
    current() {
      if (closed) return client;
      const now = stampOf(files);
      if (now !== stamp) {
        // A half-written rotation fails to load: keep the channel we have and try again next time.
        try {
          const next = connect(loadHubGrpcConfig(o.configFile, o.what));
          const old = client;
          client = next;
          stamp = now;
          old.close();
        } catch {
          return client;
        }
      }
      return client;
    },
    close() {
      closed = true;
      client.close();
    },
  };
}

/**
 * Whether the saved hub config (`--grpc-config`) is for the server the bootstrap config names (same
 * address and CA): saved credentials are only valid for that hub, as the hub kubeconfig is compared
 * with the bootstrap kubeconfig. A missing or unreadable hub config is not valid: bootstrap again.
 */
export function grpcHubConfigMatches(files: { bootstrapConfigFile: string; configFile: string }): boolean {
  if (files.configFile === '') return false;
  let hub: GrpcClientConfig;
  try {
    hub = loadGrpcConfig(files.configFile);
  } catch {
    return false;
  }
  if (files.bootstrapConfigFile === '') return true;
  let bootstrap: GrpcClientConfig;
  try {
    bootstrap = loadGrpcConfig(files.bootstrapConfigFile);
  } catch {
    // The bootstrap config is only needed to bootstrap: keep what was earned.
    return true;
  }
  return hub.url === bootstrap.url && (hub.caPem ?? '') === (bootstrap.caPem ?? '');
}
