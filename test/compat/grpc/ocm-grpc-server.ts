// OCM's gRPC server (`server grpc`, v1.2.1): the CloudEvents endpoint agents of the gRPC driver talk
// to. It writes the ManagedCluster, CSR, Lease and Event objects into the hub's kube-apiserver for
// them, authenticates by bearer token (a TokenReview) or client certificate, and authorizes each
// event with a SubjectAccessReview. It takes its serving options from a config file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { toYaml } from '../../../src/util/yaml.js';
import { startChild, type Child } from '../infra/child-process.js';
import { freePort } from '../infra/ports.js';
import type { GrpcPki } from './grpc-pki.js';

export interface GrpcServerProcess {
  /** Starts the server (again) on its port and waits until it listens. */
  start(): Promise<void>;
  /** SIGKILL: the server dies without a goodbye to its streams. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export interface OcmGrpcServerOptions {
  binary: string;
  dir: string;
  kubeconfig: string;
  port: number;
  pki: GrpcPki;
}

export function ocmGrpcServer(opts: OcmGrpcServerOptions): GrpcServerProcess {
  const configPath = join(opts.dir, 'grpc-server-config.yaml');
  writeFileSync(
    configPath,
    toYaml({
      tls_cert_file: opts.pki.certFile,
      tls_key_file: opts.pki.keyFile,
      client_ca_file: opts.pki.caFile,
      server_bind_port: String(opts.port),
    }),
    { mode: 0o600 },
  );
  let child: Child | undefined;
  return {
    async start() {
      const c = startChild({
        name: 'ocm-grpc-server',
        command: opts.binary,
        args: [
          'grpc',
          `--kubeconfig=${opts.kubeconfig}`,
          `--server-config=${configPath}`,
          '--disable-leader-election',
          '--namespace=open-cluster-management-hub',
          // Its health server defaults to 0.0.0.0:8443, which other processes of the run also default to.
          `--listen=127.0.0.1:${await freePort()}`,
        ],
        logPath: join(opts.dir, 'ocm-grpc-server.log'),
      });
      child = c;
      await c.waitForOutput(/Starting gRPC server/, 60_000);
    },
    async kill() {
      await child?.kill();
    },
    async stop() {
      await child?.stop();
    },
  };
}
