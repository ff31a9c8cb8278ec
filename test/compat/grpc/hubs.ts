// The hubs of the gRPC phase, each on its own real kube-apiserver, behind one face: the admin
// client, the gRPC endpoint agents join through, a bootstrap token the hub auto-approves, and a way
// to restart the gRPC server.
//   OCM      OCM's `registration controller` (drivers csr,grpc) + OCM's `server grpc`
//   ocm-ts   `ocm-ts hub --kubeconfig` with the drivers csr,grpc: our controllers and gRPC server
import { connect } from 'node:net';
import { join } from 'node:path';
import { startChild, type Child } from '../infra/child-process.js';
import type { Etcd } from '../infra/etcd.js';
import { startKubeControlPlane, type KubeBinaries, type KubeControlPlane } from '../infra/kube-control-plane.js';
import { freePort } from '../infra/ports.js';
import { FatalWaitError, waitUntil } from '../infra/wait-until.js';
import { createBootstrapToken, installHubBasics, writeTokenKubeconfig, type BootstrapToken } from '../matrix/cluster-setup.js';
import { ocmTsCommand } from '../matrix/ocm-ts-cli.js';
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

interface RunningHub {
  restartGrpcServer(): Promise<void>;
  stop(): Promise<void>;
}

async function startOcmHub(ctx: GrpcHubContext, cp: KubeControlPlane, pki: GrpcPki, token: BootstrapToken, port: number): Promise<RunningHub> {
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
  const server: GrpcServerProcess = ocmGrpcServer({ binary: ctx.ocmServer, dir: cp.dir, kubeconfig: cp.adminKubeconfigPath, port, pki });
  await server.start();
  return {
    async restartGrpcServer() {
      await server.kill();
      await server.start();
    },
    async stop() {
      await server.stop();
      await controller.stop();
    },
  };
}

/** Resolves once something accepts TCP connections on the loopback port. */
async function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = connect(port, '127.0.0.1');
    sock.once('connect', () => {
      sock.destroy();
      resolve(true);
    });
    sock.once('error', () => resolve(false));
  });
}

/** Our hub's gRPC server is part of `ocm-ts hub`: restarting the server restarts the hub. */
async function startOcmTsHub(cp: KubeControlPlane, pki: GrpcPki, token: BootstrapToken, port: number): Promise<RunningHub> {
  const args = [
    'hub',
    `--kubeconfig=${cp.adminKubeconfigPath}`,
    '--listen=127.0.0.1:0',
    '--disable-leader-election',
    '--feature-gates=ManagedClusterAutoApproval=true',
    '--enabled-registration-drivers=csr,grpc',
    `--grpc-ca-file=${pki.caFile}`,
    `--grpc-key-file=${pki.caKeyFile}`,
    `--auto-approved-grpc-users=${token.user}`,
    `--grpc-server-bindport=${port}`,
    `--grpc-tls-cert-file=${pki.certFile}`,
    `--grpc-tls-key-file=${pki.keyFile}`,
    `--grpc-client-ca-file=${pki.caFile}`,
  ];
  let hub: Child | undefined;
  const start = async (): Promise<void> => {
    const c = startChild({ name: 'grpc-hub-ocm-ts', ...ocmTsCommand(args), logPath: join(cp.dir, 'ocm-ts-hub.log') });
    hub = c;
    await c.waitForOutput(/ocm-ts hub ready/, 60_000);
    await waitUntil(`ocm-ts hub gRPC port ${port}`, 30_000, async () => {
      if (c.exited()) throw new FatalWaitError(`ocm-ts hub exited; see ${c.logPath}`);
      return portOpen(port);
    }, 100);
  };
  await start();
  return {
    async restartGrpcServer() {
      await hub?.kill();
      await start();
    },
    async stop() {
      await hub?.stop();
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
    const hub = kind === 'OCM' ? await startOcmHub(ctx, cp, pki, token, port) : await startOcmTsHub(cp, pki, token, port);
    return {
      kind,
      cp,
      grpcAddress: `127.0.0.1:${port}`,
      pki,
      token,
      bootstrapKubeconfigPath,
      restartGrpcServer: () => hub.restartGrpcServer(),
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
