// Hub and spoke embedded API servers for the agent start-sequence tests (or one server acting as
// both), a bootstrap kubeconfig file, the agent namespace on the management (= spoke) cluster, RBAC
// for the agent's certificate identity on the hub, and helpers playing the hub's part: approve CSRs
// (the embedded signer then issues them), accept the cluster, create its lease.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CertificateSigningRequest, ClusterRoleBinding, Secret } from '../../../src/api/core.js';
import { defaultAgentOptions, type SpokeAgentOptions } from '../../../src/agent/options/agent-options.js';
import { startSpokeAgent, type SpokeAgentHandle } from '../../../src/agent/spoke-agent.js';
import { isConflict } from '../../../src/client/errors.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import type { KubeClient } from '../../../src/client/types.js';
import type { Logger } from '../../../src/util/logger.js';
import { getIfExists } from '../../helpers/objects.js';
import { testLogger } from '../../helpers/test-log.js';
import { ensureNamespace, startClusters, type Clusters } from '../controllers/clusters.js';

export const AGENT_NS = 'open-cluster-management-agent';

export interface AgentEnv extends Clusters {
  dir: string;
  bootstrapKubeconfigPath: string;
  hubKubeconfigDir: string;
  /** Agent options pointing at this environment (short timings). */
  options(over?: Partial<SpokeAgentOptions>): SpokeAgentOptions;
  startAgent(over?: Partial<SpokeAgentOptions>, log?: Logger): Promise<SpokeAgentHandle>;
  csrs(cluster: string): Promise<CertificateSigningRequest[]>;
  hubSecret(): Promise<Secret | undefined>;
  /** Plays the hub admin from now on: approves (or denies) every CSR of cluster1, until stopDeciding(). */
  decideCsrs(decision?: 'Approved' | 'Denied'): void;
  /** Stops deciding CSRs (also part of stop()). */
  stopDeciding(): Promise<void>;
}

/** The agents' certificate identities may do anything on the hub (the hub's RBAC is not under test). */
/**
 * The hub's admin kubeconfig as the agent's bootstrap kubeconfig: written to `path` (0600) and stored
 * as the spoke's `bootstrap-hub-kubeconfig` Secret in the agent namespace.
 */
export async function writeBootstrapKubeconfig(hubKubeconfigPath: string, spokeAdmin: KubeClient, path: string): Promise<void> {
  const text = await readFile(hubKubeconfigPath, 'utf8');
  await writeFile(path, text, { mode: 0o600 });
  await spokeAdmin.resource<Secret>(resourceTypes.secrets, AGENT_NS).create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bootstrap-hub-kubeconfig', namespace: AGENT_NS },
    data: { kubeconfig: Buffer.from(text).toString('base64') },
  });
}

export async function grantAgentsClusterAdmin(hubAdmin: KubeClient): Promise<void> {
  await hubAdmin.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'test-managed-clusters-admin' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:open-cluster-management:managed-clusters' }],
  });
}

/** Agent options for tests: cluster1/agent1, OCM defaults with every start-up and resync timing shortened. */
export function testAgentOptions(over: Partial<SpokeAgentOptions> & Pick<SpokeAgentOptions, 'kubeconfig' | 'hubKubeconfigDir'>): SpokeAgentOptions {
  const d = defaultAgentOptions();
  return {
    ...d,
    clusterName: 'cluster1',
    agentId: 'agent1',
    clusterHealthcheckPeriodMs: 1000,
    ...over,
    timings: {
      ...d.timings,
      bootstrapPollMs: 50,
      registerResyncMs: 200,
      secretDumpResyncMs: 200,
      livenessPeriodMs: 200,
      livenessFailureThreshold: 3,
      restartBackoffMs: 100,
      cacheSyncTimeoutMs: 10_000,
      ...over.timings,
    },
  };
}

/** Starts the environment, stopped when the test `t` ends. */
export async function startAgentEnv(t: { after(fn: () => Promise<void>): void }, opts: { sameServer?: boolean; signingDurationMs?: number } = {}): Promise<AgentEnv> {
  const clusters = await startClusters({
    spoke: opts.sameServer ? 'same' : true,
    ...(opts.signingDurationMs ? { hubServer: { clusterSigningDurationMs: opts.signingDurationMs } } : {}),
  });
  const { hub, spoke, hubAdmin, spokeAdmin } = clusters;
  await ensureNamespace(spokeAdmin, AGENT_NS);
  await grantAgentsClusterAdmin(hubAdmin);
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-agent-'));
  const bootstrapKubeconfigPath = join(dir, 'bootstrap.kubeconfig');
  await writeBootstrapKubeconfig(hub.adminKubeconfigPath, spokeAdmin, bootstrapKubeconfigPath);
  const hubKubeconfigDir = join(dir, 'hub-kubeconfig');
  const handles: SpokeAgentHandle[] = [];
  let deciding: { ac: AbortController; done: Promise<void> } | undefined;
  const stopDeciding = async (): Promise<void> => {
    deciding?.ac.abort();
    await deciding?.done;
    deciding = undefined;
  };
  const options = (over: Partial<SpokeAgentOptions> = {}): SpokeAgentOptions =>
    testAgentOptions({ kubeconfig: spoke.adminKubeconfigPath, bootstrapKubeconfig: bootstrapKubeconfigPath, hubKubeconfigDir, ...over });
  const env: AgentEnv = {
    ...clusters,
    dir,
    bootstrapKubeconfigPath,
    hubKubeconfigDir,
    options,
    async startAgent(over = {}, log = testLogger()) {
      const h = await startSpokeAgent({ options: options(over), log, defaultMetrics: false });
      handles.push(h);
      return h;
    },
    async csrs(cluster) {
      const list = await hubAdmin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests).list({ labelSelector: `open-cluster-management.io/cluster-name=${cluster}` });
      return list.items;
    },
    hubSecret: () => getIfExists(spokeAdmin.resource<Secret>(resourceTypes.secrets, AGENT_NS), 'hub-kubeconfig-secret'),
    decideCsrs(decision = 'Approved') {
      if (deciding) throw new Error('decideCsrs: already deciding');
      const ac = new AbortController();
      deciding = { ac, done: autoDecideCsrs(hubAdmin, 'cluster1', ac.signal, decision) };
    },
    stopDeciding,
    async stop() {
      await stopDeciding();
      for (const h of handles) await h.stop();
      await clusters.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  t.after(() => env.stop());
  return env;
}

/** Approves (or denies) every pending CSR of the cluster until the signal aborts; the embedded signer issues approved ones. */
export function autoDecideCsrs(hubAdmin: KubeClient, cluster: string, signal: AbortSignal, decision: 'Approved' | 'Denied' = 'Approved'): Promise<void> {
  const csrs = hubAdmin.resource<CertificateSigningRequest>(resourceTypes.certificateSigningRequests);
  return (async () => {
    while (!signal.aborted) {
      try {
        const list = await csrs.list({ labelSelector: `open-cluster-management.io/cluster-name=${cluster}` });
        for (const csr of list.items) {
          const conds = csr.status?.conditions ?? [];
          if (conds.some((c) => c.type === 'Approved' || c.type === 'Denied')) continue;
          csr.status = { ...(csr.status ?? {}), conditions: [...conds, { type: decision, status: 'True', reason: 'TestDecision', message: `${decision} by the test` }] };
          try {
            await csrs.updateSubresource(csr, 'approval');
          } catch (err) {
            if (!isConflict(err)) throw err;
          }
        }
      } catch {
        // server stopping
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
}
