// The registration agents of the gRPC phase, with the gRPC driver: OCM's (`registration agent
// --registration-auth grpc`) and ours (`ocm-ts agent --registration-auth grpc`). Each runs on its own
// embedded spoke with the bootstrap secret as the klusterlet lays it out (`kubeconfig` and the gRPC
// `config.yaml`), and a supervisor starts it again when it exits by itself, as a kubelet restarts a
// container: OCM's agent exits on purpose to re-bootstrap.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../src/api/meta.js';
import { superviseChild } from '../infra/supervised-child.js';
import { freePort } from '../infra/ports.js';
import { applyObjects } from '../matrix/cluster-setup.js';
import { ocmTsCommand } from '../matrix/ocm-ts-cli.js';
import type { Spoke } from '../matrix/spokes.js';

export type GrpcAgentKind = 'OCM' | 'ocm-ts';

/** OCM's agent's namespace when it runs outside a pod; ours is told the same. */
export const AGENT_NAMESPACE = 'open-cluster-management-agent';

export interface GrpcAgent {
  kind: GrpcAgentKind;
  clusterName: string;
  spoke: Spoke;
  logPath: string;
  /** Times the supervisor started the agent again after it exited by itself. */
  restarts(): number;
  start(): void;
  stop(): Promise<void>;
}

export interface GrpcAgentOptions {
  kind: GrpcAgentKind;
  clusterName: string;
  spoke: Spoke;
  dir: string;
  ocmRegistration: string;
  bootstrapKubeconfigPath: string;
  /** The gRPC bootstrap config (YAML text, OCM's format). */
  grpcBootstrapConfig: string;
}

async function agentCommand(opts: GrpcAgentOptions, files: { bootstrap: string; grpcBootstrap: string; hubDir: string }): Promise<{ command: string; args: string[] }> {
  const grpcArgs = ['--registration-auth=grpc', `--grpc-bootstrap-config=${files.grpcBootstrap}`, `--grpc-config=${join(files.hubDir, 'config.yaml')}`];
  if (opts.kind === 'ocm-ts') {
    return ocmTsCommand([
      'agent',
      `--kubeconfig=${opts.spoke.adminKubeconfigPath}`,
      `--cluster-name=${opts.clusterName}`,
      `--bootstrap-kubeconfig=${files.bootstrap}`,
      `--hub-kubeconfig-dir=${files.hubDir}`,
      `--component-namespace=${AGENT_NAMESPACE}`,
      '--listen=127.0.0.1:0',
      '--disable-leader-election',
      ...grpcArgs,
    ]);
  }
  return {
    command: opts.ocmRegistration,
    args: [
      'agent',
      `--kubeconfig=${opts.spoke.adminKubeconfigPath}`,
      `--spoke-cluster-name=${opts.clusterName}`,
      `--bootstrap-kubeconfig=${files.bootstrap}`,
      `--hub-kubeconfig-dir=${files.hubDir}`,
      '--disable-leader-election',
      // Its health server defaults to 0.0.0.0:8443, which the agents of one machine share.
      `--listen=127.0.0.1:${await freePort()}`,
      ...grpcArgs,
    ],
  };
}

export async function createGrpcAgent(opts: GrpcAgentOptions): Promise<GrpcAgent> {
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const files = { bootstrap: join(opts.dir, 'bootstrap.kubeconfig'), grpcBootstrap: join(opts.dir, 'grpc-bootstrap.yaml'), hubDir: join(opts.dir, 'hub-kubeconfig') };
  const kubeconfig = readFileSync(opts.bootstrapKubeconfigPath, 'utf8');
  writeFileSync(files.bootstrap, kubeconfig, { mode: 0o600 });
  writeFileSync(files.grpcBootstrap, opts.grpcBootstrapConfig, { mode: 0o600 });
  await applyObjects(opts.spoke.admin, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: AGENT_NAMESPACE } } as KubeObject,
    {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bootstrap-hub-kubeconfig', namespace: AGENT_NAMESPACE },
      type: 'Opaque',
      stringData: { kubeconfig, 'config.yaml': opts.grpcBootstrapConfig },
    } as KubeObject,
  ]);
  const spec = await agentCommand(opts, files);
  const logPath = join(opts.dir, 'agent.log');
  const child = superviseChild({ name: `grpc-agent-${opts.clusterName}`, ...spec, logPath });
  return {
    kind: opts.kind,
    clusterName: opts.clusterName,
    spoke: opts.spoke,
    logPath,
    restarts: () => child.restarts(),
    start: () => child.start(),
    stop: () => child.stop(),
  };
}
