// Kubeconfig → ClientConfig: clusters, users and contexts, inline data and file references, token
// files (`tokenFile` / `token-file`); relative names resolve against the kubeconfig's directory. A KubeconfigSource built
// from a path re-reads the kubeconfig and every file it references when one of them changes, so a
// certificate rotated in place is used by the next new connection.

import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { errorMessage, toError } from '../util/errors.js';
import { isPlainObject } from '../util/merge-patch.js';
import { parseYaml } from '../util/yaml.js';

/** Everything needed to reach one API server as one identity. PEMs are file contents, not paths. */
export interface ClientConfig {
  server: string;
  caPem?: string;
  certPem?: string;
  keyPem?: string;
  token?: string;
  insecureSkipTlsVerify?: boolean;
  /** SNI / certificate name override (`tls-server-name`). */
  tlsServerName?: string;
  contextName: string;
  /** Namespace of the selected context, when set. */
  namespace?: string;
  /** Act as this identity (`Impersonate-User`/`Impersonate-Group`); the server authorises it. */
  impersonate?: { user: string; groups?: readonly string[] };
}

export interface LoadKubeconfigOptions {
  /** Context to use instead of current-context. */
  context?: string;
}

export class KubeconfigError extends Error {
  constructor(message: string, opts: { cause?: unknown } = {}) {
    super(message, opts.cause !== undefined ? { cause: opts.cause } : undefined);
    this.name = 'KubeconfigError';
  }
}

/** A loaded config plus the files it was read from (for change detection). */
export interface LoadedKubeconfig {
  config: ClientConfig;
  /** Absolute paths of every file read (the kubeconfig itself first, when loaded from a path). */
  files: string[];
}

/** Loads a kubeconfig file; relative file references resolve against its directory. */
export function loadKubeconfigFile(path: string, opts: LoadKubeconfigOptions = {}): LoadedKubeconfig {
  const abs = resolve(path);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    throw new KubeconfigError(`cannot read kubeconfig ${abs}: ${errorMessage(err)}`, { cause: err });
  }
  const loaded = parseKubeconfig(text, { ...opts, baseDir: dirname(abs) });
  return { config: loaded.config, files: [abs, ...loaded.files] };
}

/** Loads a kubeconfig from a string; relative file references resolve against baseDir (default: cwd). */
export function loadKubeconfigString(text: string, opts: LoadKubeconfigOptions & { baseDir?: string } = {}): ClientConfig {
  return parseKubeconfig(text, opts).config;
}

interface NamedEntry {
  name: string;
  body: Record<string, unknown>;
}

/** The `clusters`/`users`/`contexts` list of a kubeconfig as name → body (the field named `field`). */
function namedEntries(doc: Record<string, unknown>, list: string, field: string): NamedEntry[] {
  const raw = doc[list];
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw new KubeconfigError(`invalid kubeconfig: ${list} must be a list`);
  return raw.map((e, i) => {
    if (!isPlainObject(e) || typeof e.name !== 'string' || e.name === '') throw new KubeconfigError(`invalid kubeconfig: ${list}[${i}] has no name`);
    const body = e[field];
    if (body !== undefined && body !== null && !isPlainObject(body)) throw new KubeconfigError(`invalid kubeconfig: ${list}[${i}].${field} must be a mapping`);
    return { name: e.name, body: (body as Record<string, unknown> | undefined) ?? {} };
  });
}

function str(body: Record<string, unknown>, key: string): string | undefined {
  const v = body[key];
  return typeof v === 'string' && v !== '' ? v : undefined;
}

// The format is parsed here with the `yaml` package rather than @kubernetes/client-node's
// KubeConfig: importing that module alone costs ~74 MiB of resident memory (measured on Node 20),
// more than the agent's whole budget, for a format of three small lists.
function parseKubeconfig(text: string, opts: LoadKubeconfigOptions & { baseDir?: string }): LoadedKubeconfig {
  const baseDir = opts.baseDir ?? process.cwd();
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new KubeconfigError(`invalid kubeconfig: ${errorMessage(err)}`, { cause: err });
  }
  if (!isPlainObject(doc)) throw new KubeconfigError('invalid kubeconfig: not a YAML mapping');
  const clusters = namedEntries(doc, 'clusters', 'cluster');
  const users = namedEntries(doc, 'users', 'user');
  const contexts = namedEntries(doc, 'contexts', 'context');
  const contextName = opts.context ?? (typeof doc['current-context'] === 'string' ? doc['current-context'] : '');
  if (!contextName) throw new KubeconfigError('kubeconfig has no current-context');
  const ctx = contexts.find((c) => c.name === contextName)?.body;
  if (!ctx) throw new KubeconfigError(`kubeconfig does not contains context: ${contextName}`);
  const clusterName = str(ctx, 'cluster') ?? '';
  const cluster = clusters.find((c) => c.name === clusterName)?.body;
  if (!cluster) throw new KubeconfigError(`kubeconfig does not contains cluster: ${clusterName}`);
  const server = str(cluster, 'server');
  if (!server) throw new KubeconfigError(`kubeconfig cluster ${clusterName} has no server`);
  const userName = str(ctx, 'user');
  const user = userName === undefined ? undefined : users.find((u) => u.name === userName)?.body;
  if (userName !== undefined && !user) throw new KubeconfigError(`kubeconfig does not contains user: ${userName}`);
  const files: string[] = [];
  const readFile = (file: string | undefined, what: string): string | undefined => {
    if (!file) return undefined;
    const abs = absPath(baseDir, file);
    files.push(abs);
    try {
      return readFileSync(abs, 'utf8');
    } catch (err) {
      throw new KubeconfigError(`cannot read ${what} ${abs}: ${errorMessage(err)}`, { cause: err });
    }
  };
  const readPem = (body: Record<string, unknown>, key: string): string | undefined => {
    const data = str(body, `${key}-data`);
    return data !== undefined ? Buffer.from(data, 'base64').toString('utf8') : readFile(str(body, key), key);
  };
  const config: ClientConfig = { server: server.replace(/\/+$/, ''), contextName };
  const caPem = readPem(cluster, 'certificate-authority');
  if (caPem !== undefined) config.caPem = caPem;
  if (cluster['insecure-skip-tls-verify'] === true) config.insecureSkipTlsVerify = true;
  const tlsServerName = str(cluster, 'tls-server-name');
  if (tlsServerName) config.tlsServerName = tlsServerName;
  const namespace = str(ctx, 'namespace');
  if (namespace) config.namespace = namespace;
  if (user) {
    if (user.exec !== undefined && user.exec !== null) throw new KubeconfigError(`kubeconfig user ${userName}: exec credential plugins are not supported`);
    if (user['auth-provider'] !== undefined && user['auth-provider'] !== null) throw new KubeconfigError(`kubeconfig user ${userName}: auth-provider is not supported`);
    const certPem = readPem(user, 'client-certificate');
    const keyPem = readPem(user, 'client-key');
    if (certPem !== undefined) config.certPem = certPem;
    if (keyPem !== undefined) config.keyPem = keyPem;
    const token = str(user, 'token');
    if (token) config.token = token;
    const tokenText = readFile(str(user, 'tokenFile') ?? str(user, 'token-file'), 'token file');
    if (tokenText !== undefined) config.token = tokenText.trim();
  }
  return { config, files };
}

function absPath(baseDir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(baseDir, p);
}

/** Where a client gets its config: fixed, or re-read from files when they change. */
export interface ConfigSource {
  /** The config to use for the next new connection; never throws once a first load succeeded. */
  current(): ClientConfig;
}

export function staticConfigSource(config: ClientConfig): ConfigSource {
  const frozen = Object.freeze({ ...config });
  return { current: () => frozen };
}

export interface FileConfigSourceOptions extends LoadKubeconfigOptions {
  /** Called when a reload fails (the previous config stays in use) or succeeds. */
  onReload?(result: { ok: true; files: string[] } | { ok: false; err: Error }): void;
}

/**
 * Re-reads the kubeconfig (and the cert/key/CA/token files it references) whenever the
 * fingerprint (mtime, size, inode) of one of them changes. The first load happens lazily on the
 * first current() call, which throws a KubeconfigError when it fails.
 */
export function fileConfigSource(path: string, opts: FileConfigSourceOptions = {}): ConfigSource {
  let loaded: LoadedKubeconfig | undefined;
  let prints = '';
  const fingerprint = (files: string[]): string =>
    files
      .map((f) => {
        try {
          const s = statSync(f);
          return `${f}:${s.mtimeMs}:${s.size}:${s.ino}`;
        } catch {
          return `${f}:missing`;
        }
      })
      .join('|');
  return {
    current(): ClientConfig {
      if (loaded !== undefined && fingerprint(loaded.files) === prints) return loaded.config;
      try {
        // Fingerprint before reading: a write racing the read changes it again and we reload next time.
        const candidateFiles = loaded?.files ?? [resolve(path)];
        const before = fingerprint(candidateFiles);
        const next = loadKubeconfigFile(path, opts);
        const sameFileSet = next.files.join('|') === candidateFiles.join('|');
        prints = sameFileSet ? before : fingerprint(next.files);
        loaded = next;
        opts.onReload?.({ ok: true, files: next.files });
        return next.config;
      } catch (err) {
        if (loaded === undefined) throw err;
        opts.onReload?.({ ok: false, err: toError(err) });
        return loaded.config;
      }
    },
  };
}
