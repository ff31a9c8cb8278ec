// The PKI of a hub's gRPC endpoint, as OCM's cluster manager lays it out: one CA that signs the gRPC
// server's serving certificate, is the server's client CA, and signs the agents' client certificates
// for CSRs with the open-cluster-management.io/grpc signer (the hub controller's --grpc-ca-file and
// --grpc-key-file). Agents trust the same CA, inline in their bootstrap config.
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { toYaml } from '../../../src/util/yaml.js';
import { ensurePki } from '../../../src/apiserver/pki/index.js';

export interface GrpcPki {
  caPem: string;
  caFile: string;
  caKeyFile: string;
  /** Serving certificate for 127.0.0.1, ::1 and localhost. */
  certFile: string;
  keyFile: string;
}

export async function grpcPki(dir: string): Promise<GrpcPki> {
  const pkiDir = join(dir, 'grpc-pki');
  const pki = await ensurePki(pkiDir, { caCommonName: 'compat-grpc-ca' });
  return {
    caPem: pki.caPem,
    caFile: join(pkiDir, 'ca.crt'),
    caKeyFile: join(pkiDir, 'ca.key'),
    certFile: join(pkiDir, 'apiserver.crt'),
    keyFile: join(pkiDir, 'apiserver.key'),
  };
}

/**
 * An agent's gRPC bootstrap config in OCM's format (the `config.yaml` key of the bootstrap secret):
 * the server as host:port, the CA as base64 of its PEM, and the bootstrap token.
 */
export function writeGrpcBootstrapConfig(path: string, hostPort: string, caPem: string, token: string): string {
  const text = toYaml({ url: hostPort, caData: Buffer.from(caPem).toString('base64'), token });
  writeFileSync(path, text, { mode: 0o600 });
  return text;
}
