// The `config.yaml` the gRPC driver saves in the hub kubeconfig secret, as OCM's agent writes it: the
// server URL, its CA (embedded) and keepalive settings from the config the agent connected with,
// and the client certificate and key as the files the secret is copied to, so that the saved
// config names the credential the hub signed. Rendered with a fixed key order because the secret
// controller compares bytes to decide whether to save.

import { resolve } from 'node:path';
import { hubSecretKeys } from '../../../api/constants.js';
import { toYaml } from '../../../util/yaml.js';

/** The hub kubeconfig secret key holding the gRPC config (the agent's `--grpc-config` points at its copy). */
export const GRPC_CONFIG_KEY = 'config.yaml';

export interface HubConfigSource {
  url: string;
  /** PEM bytes of the server's CA, when the config had one (inline or as a file). */
  caData?: Buffer | undefined;
  /** The `keepAliveConfig` mapping as written, copied unchanged. */
  keepAliveConfig?: Record<string, unknown> | undefined;
}

export function renderHubGrpcConfig(source: HubConfigSource, hubKubeconfigDir: string): Buffer {
  const doc: Record<string, unknown> = {};
  if (source.caData !== undefined && source.caData.length > 0) doc['caData'] = source.caData.toString('base64');
  // Absolute: a relative name would be read against the config file's own folder (the hub
  // kubeconfig dir itself), not the folder the agent was started in.
  doc['clientCertFile'] = resolve(hubKubeconfigDir, hubSecretKeys.tlsCert);
  doc['clientKeyFile'] = resolve(hubKubeconfigDir, hubSecretKeys.tlsKey);
  doc['url'] = source.url;
  // OCM's file always carries the token key, empty: the certificate is the credential.
  doc['token'] = '';
  if (source.keepAliveConfig !== undefined && Object.keys(source.keepAliveConfig).length > 0) doc['keepAliveConfig'] = source.keepAliveConfig;
  return Buffer.from(toYaml(doc), 'utf8');
}
