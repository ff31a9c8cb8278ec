// Kubeconfig files read as written, as OCM loads the bootstrap kubeconfig: no relative path resolution, no
// file reads, only the current context's cluster entry. Used to derive the hub kubeconfig from the
// bootstrap one and to compare the two (./hub-kubeconfig-validity.ts).

import { readFileSync } from 'node:fs';
import { errorMessage } from '../../util/errors.js';
import { isPlainObject } from '../../util/merge-patch.js';
import { parseYaml } from '../../util/yaml.js';

/** The fields of a kubeconfig cluster entry the agent copies or compares. */
export interface RawCluster {
  /** Name of the cluster entry (the current context's `cluster`). */
  name: string;
  server: string;
  certificateAuthority: string;
  /** Base64 text of `certificate-authority-data`, as written. */
  certificateAuthorityData: string;
  proxyUrl: string;
}

class KubeconfigLoadError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'KubeconfigLoadError';
  }
}

/** Parses kubeconfig text and resolves current-context → cluster; throws OCM's messages. */
export function currentClusterOf(text: string): RawCluster {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new KubeconfigLoadError(`error loading config: ${errorMessage(err)}`, { cause: err });
  }
  if (doc === null || doc === undefined) doc = {};
  if (!isPlainObject(doc)) throw new KubeconfigLoadError('error loading config: not a YAML mapping');
  const contextName = str(doc['current-context']);
  const ctx = namedEntry(doc.contexts, contextName, 'context');
  if (!ctx) throw new KubeconfigLoadError(`kubeconfig does not contains context: ${contextName}`);
  const clusterName = str(ctx.cluster);
  const cluster = namedEntry(doc.clusters, clusterName, 'cluster');
  if (!cluster) throw new KubeconfigLoadError(`kubeconfig does not contains cluster: ${clusterName}`);
  return {
    name: clusterName,
    server: str(cluster.server),
    certificateAuthority: str(cluster['certificate-authority']),
    certificateAuthorityData: str(cluster['certificate-authority-data']).replace(/\s+/g, ''),
    proxyUrl: str(cluster['proxy-url']),
  };
}

/** Reads a kubeconfig file as written. */
export function loadCurrentCluster(path: string): RawCluster {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeconfigLoadError(`unable to load kubeconfig from file ${JSON.stringify(path)}: ${errorMessage(err)}`, { cause: err });
  }
  return currentClusterOf(text);
}

function namedEntry(list: unknown, name: string, field: string): Record<string, unknown> | undefined {
  if (!Array.isArray(list) || name === '') return undefined;
  for (const e of list) {
    if (isPlainObject(e) && e.name === name && isPlainObject(e[field])) return e[field] as Record<string, unknown>;
  }
  return undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Decoded CA data bytes (for byte comparison). */
function caDataBytes(c: RawCluster): Buffer {
  return Buffer.from(c.certificateAuthorityData, 'base64');
}

/**
 * True when the hub kubeconfig points at the same hub as the bootstrap one. The cluster entry's name
 * is compared too: it tells apart a rebuilt hub with the same URL and CA.
 */
export function sameHub(bootstrap: RawCluster, hub: RawCluster): boolean {
  return (
    bootstrap.server === hub.server &&
    bootstrap.proxyUrl === hub.proxyUrl &&
    bootstrap.certificateAuthority === hub.certificateAuthority &&
    caDataBytes(bootstrap).equals(caDataBytes(hub)) &&
    bootstrap.name === hub.name
  );
}
