// The hubs of the gRPC phase, each on its own real kube-apiserver, behind one face: the admin
// client, the gRPC endpoint agents join through, a bootstrap token the hub auto-approves, and a way
// to restart the gRPC server.
//   OCM      OCM's `registration controller` (drivers csr,grpc) + OCM's `server grpc`
import { join } from 'node:path';
import { startChild } from '../infra/child-process.js';
import type { Etcd } from '../infra/etcd.js';
import { startKubeControlPlane, type KubeBinaries, type KubeControlPlane } from '../infra/kube-control-plane.js';
import { freePort } from '../infra/ports.js';
import { createBootstrapToken, installHubBasics, writeTokenKubeconfig, type BootstrapToken } from '../matrix/cluster-setup.js';
import { grpcPki, type GrpcPki } from './grpc-pki.js';
import { ocmGrpcServer, type GrpcServerProcess } from './ocm-grpc-server.js';

export type GrpcHubKind = 'OCM' | 'ocm-ts';

export interface GrpcHub {
  kind: GrpcHubKind;
  cp: KubeControlPlane;
  /** host:port of the gRPC server, as agents' configs name it. */
  grpcAddress: string;
  pki: GrpcPki;
  /** Auto-approved at the gRPC server (its CSRs and its cluster). */
  token: BootstrapToken;
  /** A kube bootstrap kubeconfig for the same token (OCM's agent reads the hub's address from it). */
  bootstrapKubeconfigPath: string;
  /** Kills the gRPC server and starts it again on the same port. */
  restartGrpcServer(): Promise<void>;
  stop(): Promise<void>;
}

export interface GrpcHubContext {
  runDir: string;
  etcd: Etcd;
  kube: KubeBinaries;
  ocmRegistration: string;
  ocmServer: string;
}

const TOKEN = { id: 'grpcap', secret: '0f1e2d3c4b5a6978' };

async function startOcmHub(ctx: GrpcHubContext, cp: KubeControlPlane, pki: GrpcPki, token: BootstrapToken, port: number): Promise<{ server: GrpcServerProcess; stop(): Promise<void> }> {
  const controller = startChild({
    name: 'grpc-hub-ocm-controller',
    command: ctx.ocmRegistration,
    args: [
      'controller',
      `--kubeconfig=${cp.adminKubeconfigPath}`,
      '--disable-leader-election',
      '--namespace=open-cluster-management-hub',
      `--listen=127.0.0.1:${await freePort()}`,
      '--feature-gates=ManagedClusterAutoApproval=true',
      '--enabled-registration-drivers=csr,grpc',
      `--grpc-ca-file=${pki.caFile}`,
      `--grpc-key-file=${pki.caKeyFile}`,
      `--auto-approved-grpc-users=${token.user}`,
    ],
    logPath: join(cp.dir, 'ocm-registration-controller.log'),
  });
  const server = ocmGrpcServer({ binary: ctx.ocmServer, dir: cp.dir, kubeconfig: cp.adminKubeconfigPath, port, pki });
  await server.start();
  return {
    server,
    async stop() {
      await server.stop();
      await controller.stop();
    },
  };
}

export async function startGrpcHub(kind: GrpcHubKind, ctx: GrpcHubContext): Promise<GrpcHub> {
  const cp = await startKubeControlPlane({ name: `grpc-hub-${kind.toLowerCase()}`, runDir: ctx.runDir, etcd: ctx.etcd, binaries: ctx.kube });
  try {
    await installHubBasics(cp.admin);
    const token = await createBootstrapToken(cp.admin, TOKEN.id, TOKEN.secret);
    const bootstrapKubeconfigPath = join(cp.dir, 'bootstrap.kubeconfig');
    writeTokenKubeconfig(bootstrapKubeconfigPath, cp.url, cp.caPem, `${token.id}.${token.secret}`);
    const pki = await grpcPki(cp.dir);
    const port = await freePort();
    if (kind !== 'OCM') throw new Error(`gRPC hub ${kind}: not wired yet`);
    const hub = await startOcmHub(ctx, cp, pki, token, port);
    return {
      kind,
      cp,
      grpcAddress: `127.0.0.1:${port}`,
      pki,
      token,
      bootstrapKubeconfigPath,
      async restartGrpcServer() {
        await hub.server.kill();
        await hub.server.start();
      },
      async stop() {
        await hub.stop();
        await cp.stop();
      },
    };
  } catch (err) {
    await cp.stop();
    throw err;
  }
}
