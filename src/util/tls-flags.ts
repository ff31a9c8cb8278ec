// `--tls-min-version` and `--tls-cipher-suites` as OCM's components take them (Go names: `VersionTLS12`,
// IANA cipher suite names), turned into Node's TLS server options. Pure.

/** The versions OCM's components accept as a minimum. */
type TlsMinVersion = 'TLSv1.2' | 'TLSv1.3';

export interface TlsServingFlags {
  minVersion: TlsMinVersion;
  /** OpenSSL cipher list for TLS 1.2; undefined keeps Node's defaults. */
  ciphers?: string;
}

export class TlsFlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TlsFlagError';
  }
}

const MIN_VERSIONS: Readonly<Record<string, TlsMinVersion>> = {
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/** The TLS 1.2 suites Go offers, by IANA name, with their OpenSSL names. */
const TLS12_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
};

// TLS 1.3 suites are not configurable in Go either: named, they are accepted and have no effect.
const TLS13_SUITES = new Set(['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256']);

/** Empty strings mean "not given": TLS 1.2 or newer with Node's default ciphers. */
export function parseTlsServingFlags(minVersion: string, cipherSuites: string): TlsServingFlags {
  const min = minVersion.trim();
  let version: TlsMinVersion = 'TLSv1.2';
  if (min !== '') {
    const v = MIN_VERSIONS[min];
    if (v === undefined) throw new TlsFlagError(`--tls-min-version: unsupported TLS version "${min}" (VersionTLS12 or VersionTLS13)`);
    version = v;
  }
  const names = cipherSuites.split(',').map((s) => s.trim()).filter((s) => s !== '');
  const openssl: string[] = [];
  for (const name of names) {
    const o = Object.hasOwn(TLS12_SUITES, name) ? TLS12_SUITES[name] : undefined;
    if (o !== undefined) openssl.push(o);
    else if (!TLS13_SUITES.has(name)) throw new TlsFlagError(`--tls-cipher-suites: unsupported cipher suite "${name}"`);
  }
  if (names.length > 0 && openssl.length === 0 && version === 'TLSv1.2') {
    throw new TlsFlagError('--tls-cipher-suites: no TLS 1.2 cipher suite given, so TLS 1.2 clients could not connect; add one or set --tls-min-version=VersionTLS13');
  }
  // TLS 1.3 suites stay on, as in Go, whatever the list says.
  const ciphers = openssl.length > 0 ? ['TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256', 'TLS_AES_128_GCM_SHA256', ...new Set(openssl)].join(':') : undefined;
  return { minVersion: version, ...(ciphers !== undefined ? { ciphers } : {}) };
}
