// The two registration agents of the matrix behind one face. Each runs as a child process on its
// spoke, with the bootstrap kubeconfig both as a file (what a kubelet mounts) and as the
// `bootstrap-hub-kubeconfig` secret in its namespace (what both agents watch). A supervisor restarts
// an agent that exits by itself, as a kubelet restarts a container: OCM's agent exits on purpose to
// re-bootstrap.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeObject } from '../../../src/api/meta.js';
import { superviseChild } from '../infra/supervised-child.js';
import { freePort } from '../infra/ports.js';
import { applyObjects } from './cluster-setup.js';
import { ocmTsCommand } from './ocm-ts-cli.js';
import type { Spoke } from './spokes.js';

export type AgentKind = 'ocm-ts' | 'OCM';
export const AGENT_KINDS: readonly AgentKind[] = ['ocm-ts', 'OCM'];

export interface Agent {
  kind: AgentKind;
  clusterName: string;
  spoke: Spoke;
  namespace: string;
  hubKubeconfigDir: string;
  /** Times the supervisor restarted the process after it exited by itself. */
  restarts(): number;
  logPath: string;
  start(): void;
  /** SIGKILL, and no restart until start() (a crashed, unscheduled agent). */
  kill(): Promise<void>;
  stop(): Promise<void>;
  /** Replaces the bootstrap kubeconfig (file and secret), as an admin rotating the token does. */
  replaceBootstrap(kubeconfigPath: string): Promise<void>;
}

export interface AgentOptions {
  kind: AgentKind;
  clusterName: string;
  spoke: Spoke;
  /** OCM's agent takes its namespace from the service-account file or open-cluster-management-agent. */
  namespace: string;
  bootstrapKubeconfigPath: string;
  dir: string;
  ocmRegistration: string;
}

async function writeBootstrapSecret(spoke: Spoke, namespace: string, kubeconfig: string): Promise<void> {
  await applyObjects(spoke.admin, [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } } as KubeObject,
    { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-hub-kubeconfig', namespace }, type: 'Opaque', stringData: { kubeconfig } } as KubeObject,
  ]);
}

export async function createAgent(opts: AgentOptions): Promise<Agent> {
  mkdirSync(opts.dir, { recursive: true, mode: 0o700 });
  const hubKubeconfigDir = join(opts.dir, 'hub-kubeconfig');
  const bootstrapPath = join(opts.dir, 'bootstrap.kubeconfig');
  writeFileSync(bootstrapPath, readFileSync(opts.bootstrapKubeconfigPath), { mode: 0o600 });
  await writeBootstrapSecret(opts.spoke, opts.namespace, readFileSync(bootstrapPath, 'utf8'));
  const logPath = join(opts.dir, 'agent.log');
  const spec =
    opts.kind === 'ocm-ts'
      ? ocmTsCommand([
          'agent',
          `--kubeconfig=${opts.spoke.adminKubeconfigPath}`,
          `--cluster-name=${opts.clusterName}`,
          `--bootstrap-kubeconfig=${bootstrapPath}`,
          `--hub-kubeconfig-dir=${hubKubeconfigDir}`,
          `--component-namespace=${opts.namespace}`,
          '--listen=127.0.0.1:0',
          // As for OCM's agent below: a killed agent must not wait out a 137 s lock to come back.
          '--disable-leader-election',
        ])
      : {
          command: opts.ocmRegistration,
          args: [
            'agent',
            `--kubeconfig=${opts.spoke.adminKubeconfigPath}`,
            `--spoke-cluster-name=${opts.clusterName}`,
            `--bootstrap-kubeconfig=${bootstrapPath}`,
            `--hub-kubeconfig-dir=${hubKubeconfigDir}`,
            '--disable-leader-election',
            // Its health server defaults to 0.0.0.0:8443, which the agents of one machine share.
            `--listen=127.0.0.1:${await freePort()}`,
          ],
        };
  const child = superviseChild({ name: `agent-${opts.clusterName}`, ...spec, logPath });
  return {
    kind: opts.kind,
    clusterName: opts.clusterName,
    spoke: opts.spoke,
    namespace: opts.namespace,
    hubKubeconfigDir,
    logPath,
    restarts: () => child.restarts(),
    start: () => child.start(),
    kill: () => child.kill(),
    stop: () => child.stop(),
    async replaceBootstrap(kubeconfigPath) {
      const text = readFileSync(kubeconfigPath, 'utf8');
      writeFileSync(bootstrapPath, text, { mode: 0o600 });
      await writeBootstrapSecret(opts.spoke, opts.namespace, text);
    },
  };
}
