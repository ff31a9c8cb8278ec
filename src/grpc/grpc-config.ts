// OCM's gRPC client configuration (the `config.yaml` of the agent's gRPC bootstrap and hub secrets):
// `url` (HOST:PORT), the server CA (`caData` base64 PEM, or `caFile`), a client certificate
// (`clientCertData`/`clientKeyData` base64 PEM, or the `*File` forms) or a bearer `token`
// (`tokenFile`), `keepAliveConfig` and `serverHealthinessTimeout`. Parsing is pure; reading the
// files it names is done by loadGrpcConfig.

import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parseGoDuration } from '../util/duration.js';
import { errorMessage } from '../util/errors.js';
import { parseYaml } from '../util/yaml.js';

interface GrpcKeepAlive {
  enable: boolean;
  timeMs: number;
  timeoutMs: number;
  permitWithoutStream: boolean;
}

export interface GrpcClientConfig {
  url: string;
  /** PEM of the CA that signed the server's certificate; undefined = plaintext connection. */
  caPem?: string;
  clientCertPem?: string;
  clientKeyPem?: string;
  token?: string;
  keepAlive: GrpcKeepAlive;
  /** Reconnect when no heartbeat came for this long; undefined = never. */
  serverHealthinessTimeoutMs?: number;
}

class GrpcConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GrpcConfigError';
  }
}

/** The raw fields of the YAML, before files are read. */
interface RawConfig {
  url?: unknown;
  caFile?: unknown;
  caData?: unknown;
  clientCertFile?: unknown;
  clientCertData?: unknown;
  clientKeyFile?: unknown;
  clientKeyData?: unknown;
  token?: unknown;
  tokenFile?: unknown;
  keepAliveConfig?: { enable?: unknown; time?: unknown; timeout?: unknown; permitWithoutStream?: unknown };
  serverHealthinessTimeout?: unknown;
}

function str(field: string, v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new GrpcConfigError(`${field} must be a string`);
  return v === '' ? undefined : v;
}

function base64Pem(field: string, v: unknown): string | undefined {
  const s = str(field, v);
  if (s === undefined) return undefined;
  if (!/^[A-Za-z0-9+/=\s]*$/.test(s)) throw new GrpcConfigError(`${field} must be base64-encoded PEM`);
  return Buffer.from(s, 'base64').toString('utf8');
}

/** Go's yaml reads a time.Duration from a duration string or an integer of nanoseconds. */
function durationMs(field: string, v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isFinite(v)) return v / 1e6;
  if (typeof v === 'string') {
    try {
      return parseGoDuration(v);
    } catch (err) {
      throw new GrpcConfigError(`${field}: ${errorMessage(err)}`);
    }
  }
  throw new GrpcConfigError(`${field} must be a duration`);
}

type ReadFile = (path: string) => string;

/**
 * Parses the YAML text; `readFile` reads the files it names (relative paths from `baseDir`). Refuses
 * what OCM's loader refuses: no url, half a client key pair, a token without a CA.
 */
export function parseGrpcConfig(text: string, readFile: ReadFile, baseDir = '.'): GrpcClientConfig {
  let raw: RawConfig;
  try {
    raw = (parseYaml(text) ?? {}) as RawConfig;
  } catch (err) {
    throw new GrpcConfigError(`not YAML: ${errorMessage(err)}`);
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new GrpcConfigError('not a YAML mapping');
  const fromFile = (field: string, v: unknown): string | undefined => {
    const p = str(field, v);
    if (p === undefined) return undefined;
    try {
      return readFile(isAbsolute(p) ? p : resolve(baseDir, p));
    } catch (err) {
      throw new GrpcConfigError(`${field} ${p}: ${errorMessage(err)}`);
    }
  };
  const url = str('url', raw.url);
  if (url === undefined) throw new GrpcConfigError('url is required');
  const caPem = base64Pem('caData', raw.caData) ?? fromFile('caFile', raw.caFile);
  const clientCertPem = base64Pem('clientCertData', raw.clientCertData) ?? fromFile('clientCertFile', raw.clientCertFile);
  const clientKeyPem = base64Pem('clientKeyData', raw.clientKeyData) ?? fromFile('clientKeyFile', raw.clientKeyFile);
  if ((clientCertPem === undefined) !== (clientKeyPem === undefined)) throw new GrpcConfigError('either both or none of clientCertFile and clientKeyFile must be set');
  const token = (str('token', raw.token) ?? fromFile('tokenFile', raw.tokenFile))?.trim();
  if (token !== undefined && token !== '' && caPem === undefined) throw new GrpcConfigError('setting token requires authority certificates');
  const ka = raw.keepAliveConfig ?? {};
  const healthiness = durationMs('serverHealthinessTimeout', raw.serverHealthinessTimeout);
  return {
    url,
    ...(caPem !== undefined ? { caPem } : {}),
    ...(clientCertPem !== undefined ? { clientCertPem, clientKeyPem: clientKeyPem! } : {}),
    ...(token !== undefined && token !== '' ? { token } : {}),
    keepAlive: {
      enable: ka.enable === true,
      timeMs: durationMs('keepAliveConfig.time', ka.time) ?? 30_000,
      timeoutMs: durationMs('keepAliveConfig.timeout', ka.timeout) ?? 10_000,
      permitWithoutStream: ka.permitWithoutStream === true,
    },
    ...(healthiness !== undefined ? { serverHealthinessTimeoutMs: healthiness } : {}),
  };
}

/** Reads and parses a config file; file paths inside are relative to its directory. */
export function loadGrpcConfig(path: string): GrpcClientConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new GrpcConfigError(`${path}: ${errorMessage(err)}`);
  }
  return parseGrpcConfig(text, (p) => readFileSync(p, 'utf8'), dirname(path));
}
