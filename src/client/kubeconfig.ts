// Kubeconfig → ClientConfig. Parsing uses @kubernetes/client-node's KubeConfig (clusters, users,
// contexts, inline data and file references); token files (`tokenFile` / `token-file`) are handled
// here so that relative names resolve against the kubeconfig's directory. A KubeconfigSource built
// from a path re-reads the kubeconfig and every file it references when one of them changes, so a
// certificate rotated in place is used by the next new connection.

import { readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

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
    throw new KubeconfigError(`cannot read kubeconfig ${abs}: ${(err as Error).message}`, { cause: err });
  }
  const loaded = parseKubeconfig(text, { ...opts, baseDir: dirname(abs) });
  return { config: loaded.config, files: [abs, ...loaded.files] };
}

/** Loads a kubeconfig from a string; relative file references resolve against baseDir (default: cwd). */
export function loadKubeconfigString(text: string, opts: LoadKubeconfigOptions & { baseDir?: string } = {}): ClientConfig {
  return parseKubeconfig(text, opts).config;
}

function parseKubeconfig(text: string, opts: LoadKubeconfigOptions & { baseDir?: string }): LoadedKubeconfig {
  const baseDir = opts.baseDir ?? process.cwd();
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new KubeconfigError(`invalid kubeconfig: ${(err as Error).message}`, { cause: err });
  }
  if (!isRecord(doc)) throw new KubeconfigError('invalid kubeconfig: not a YAML mapping');
  // Pull token files out before client-node sees them (it reads them relative to the cwd).
  const tokenFiles = new Map<string, string>();
  if (Array.isArray(doc.users)) {
    for (const u of doc.users) {
      if (!isRecord(u) || typeof u.name !== 'string' || !isRecord(u.user)) continue;
      const tf = u.user.tokenFile ?? u.user['token-file'];
      if (typeof tf === 'string' && tf !== '') tokenFiles.set(u.name, absPath(baseDir, tf));
      delete u.user.tokenFile;
      delete u.user['token-file'];
    }
  }
  const kc = new KubeConfig();
  try {
    kc.loadFromString(stringifyYaml(doc));
  } catch (err) {
    throw new KubeconfigError(`invalid kubeconfig: ${(err as Error).message}`, { cause: err });
  }
  kc.makePathsAbsolute(baseDir);
  const contextName = opts.context ?? kc.getCurrentContext();
  if (!contextName) throw new KubeconfigError('kubeconfig has no current-context');
  const ctx = kc.getContextObject(contextName);
  if (!ctx) throw new KubeconfigError(`kubeconfig does not contains context: ${contextName}`);
  const cluster = kc.getCluster(ctx.cluster);
  if (!cluster) throw new KubeconfigError(`kubeconfig does not contains cluster: ${ctx.cluster}`);
  const user = ctx.user ? kc.getUser(ctx.user) : null;
  const files: string[] = [];
  const readPem = (file: string | undefined | null, data: string | undefined | null, what: string): string | undefined => {
    if (data) return Buffer.from(data, 'base64').toString('utf8');
    if (!file) return undefined;
    files.push(file);
    try {
      return readFileSync(file, 'utf8');
    } catch (err) {
      throw new KubeconfigError(`cannot read ${what} ${file}: ${(err as Error).message}`, { cause: err });
    }
  };
  const config: ClientConfig = { server: cluster.server.replace(/\/+$/, ''), contextName };
  const caPem = readPem(cluster.caFile, cluster.caData, 'certificate-authority');
  if (caPem !== undefined) config.caPem = caPem;
  if (cluster.skipTLSVerify) config.insecureSkipTlsVerify = true;
  if (cluster.tlsServerName) config.tlsServerName = cluster.tlsServerName;
  if (ctx.namespace) config.namespace = ctx.namespace;
  if (user) {
    if (user.exec) throw new KubeconfigError(`kubeconfig user ${user.name}: exec credential plugins are not supported`);
    if (user.authProvider) throw new KubeconfigError(`kubeconfig user ${user.name}: auth-provider is not supported`);
    const certPem = readPem(user.certFile, user.certData, 'client-certificate');
    const keyPem = readPem(user.keyFile, user.keyData, 'client-key');
    if (certPem !== undefined) config.certPem = certPem;
    if (keyPem !== undefined) config.keyPem = keyPem;
    if (user.token) config.token = user.token;
    const tf = tokenFiles.get(user.name);
    if (tf !== undefined) {
      files.push(tf);
      try {
        config.token = readFileSync(tf, 'utf8').trim();
      } catch (err) {
        throw new KubeconfigError(`cannot read token file ${tf}: ${(err as Error).message}`, { cause: err });
      }
    }
  }
  return { config, files };
}

function absPath(baseDir: string, p: string): string {
  return isAbsolute(p) ? p : resolve(baseDir, p);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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
        opts.onReload?.({ ok: false, err: err as Error });
        return loaded.config;
      }
    },
  };
}
