// Managed clusters for the agents: an embedded one (`ocm-ts apiserver`, the default: cheap, one per
// agent) or a real kube-apiserver shared by several agents in different namespaces.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createKubeClient } from '../../../src/client/rest-client.js';
import type { KubeClient } from '../../../src/client/types.js';
import { startChild } from '../infra/child-process.js';
import type { KubeControlPlane } from '../infra/kube-control-plane.js';
import { installSpokeBasics } from './cluster-setup.js';
import { ocmTsCommand } from './ocm-ts-cli.js';

export type SpokeKind = 'ocm-ts' | 'kube';

export interface Spoke {
  kind: SpokeKind;
  name: string;
  adminKubeconfigPath: string;
  admin: KubeClient;
  stop(): Promise<void>;
}

export async function startEmbeddedSpoke(runDir: string, name: string): Promise<Spoke> {
  const dir = join(runDir, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const server = startChild({ name, ...ocmTsCommand(['apiserver', `--data-dir=${dir}`, '--listen=127.0.0.1:0']), logPath: join(dir, 'ocm-ts-apiserver.log') });
  await server.waitForOutput(/listening on (\S+)/, 60_000);
  const adminKubeconfigPath = join(dir, 'admin.kubeconfig');
  const admin = createKubeClient({ kubeconfigPath: adminKubeconfigPath });
  await installSpokeBasics(admin);
  return {
    kind: 'ocm-ts',
    name,
    adminKubeconfigPath,
    admin,
    async stop() {
      admin.close();
      await server.stop();
    },
  };
}

/** A real control plane as the spoke; the CRDs are installed once, stopping is the owner's job. */
export async function realSpoke(cp: KubeControlPlane): Promise<Spoke> {
  await installSpokeBasics(cp.admin);
  return { kind: 'kube', name: cp.name, adminKubeconfigPath: cp.adminKubeconfigPath, admin: cp.admin, stop: async () => {} };
}
