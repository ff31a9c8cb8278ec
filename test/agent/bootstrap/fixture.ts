// Hub and spoke embedded API servers for the agent start-sequence tests (or one server acting as
// both), a bootstrap kubeconfig file, the agent namespace on the management (= spoke) cluster, RBAC
// for the agent's certificate identity on the hub, and helpers playing the hub's part: approve CSRs
// (the embedded signer then issues them), accept the cluster, create its lease.

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HUB_CRD_NAMES, SPOKE_CRD_NAMES, loadCrds } from '../../../src/api/crds.js';
import type { CertificateSigningRequest, ClusterRoleBinding, Secret } from '../../../src/api/core.js';
import { defaultAgentOptions, type SpokeAgentOptions } from '../../../src/agent/options/agent-options.js';
import { startSpokeAgent, type SpokeAgentHandle } from '../../../src/agent/spoke-agent.js';
import { isConflict } from '../../../src/client/errors.js';
import { createKubeClient } from '../../../src/client/rest-client.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import type { KubeClient } from '../../../src/client/types.js';
import { createLogger, nullLogger, type Logger } from '../../../src/util/logger.js';
import { startTestApiServer, type TestApiServer } from '../../helpers/embedded-server.js';
import { waitFor } from '../../helpers/wait-for.js';
import { ensureNamespace } from '../controllers/clusters.js';

export const AGENT_NS = 'open-cluster-management-agent';

export interface AgentEnv {
  hub: TestApiServer;
  spoke: TestApiServer;
  hubAdmin: KubeClient;
  spokeAdmin: KubeClient;
  dir: string;
  bootstrapKubeconfigPath: string;
  hubKubeconfigDir: string;
  /** Agent options pointing at this environment (short timings). */
  options(over?: Partial<SpokeAgentOptions>): SpokeAgentOptions;
  startAgent(over?: Partial<SpokeAgentOptions>, log?: Logger): Promise<SpokeAgentHandle>;
  csrs(cluster: string): Promise<CertificateSigningRequest[]>;
  hubSecret(): Promise<Secret | undefined>;
  stop(): Promise<void>;
}

async function installCrds(client: KubeClient, names: readonly string[]): Promise<void> {
  const crds = client.resource(resourceTypes.customResourceDefinitions);
  for (const crd of loadCrds(names)) await crds.create(crd);
  for (const crd of loadCrds(names)) {
    const spec = crd['spec'] as { group: string; names: { plural: string }; versions: { name: string }[] };
    for (const v of spec.versions) {
      await waitFor(async () => {
        await client.request('GET', `/apis/${spec.group}/${v.name}/${spec.names.plural}?limit=1`);
        return true;
      }, 10_000);
    }
  }
}

export function testLogger(): Logger {
  const level = process.env.OCM_TS_TEST_LOG;
  return level === 'debug' || level === 'info' || level === 'warn' || level === 'error' ? createLogger({ level }) : nullLogger();
}

export async function startAgentEnv(opts: { sameServer?: boolean; signingDurationMs?: number } = {}): Promise<AgentEnv> {
  const serverOpts = opts.signingDurationMs ? { clusterSigningDurationMs: opts.signingDurationMs } : {};
  const hub = await startTestApiServer(serverOpts);
  const spoke = opts.sameServer ? hub : await startTestApiServer();
  const hubAdmin = createKubeClient({ kubeconfigPath: hub.adminKubeconfigPath });
  const spokeAdmin = opts.sameServer ? hubAdmin : createKubeClient({ kubeconfigPath: spoke.adminKubeconfigPath });
  await installCrds(hubAdmin, HUB_CRD_NAMES);
  await installCrds(spokeAdmin, SPOKE_CRD_NAMES);
  await ensureNamespace(spokeAdmin, AGENT_NS);
  // The agent's certificate identity may do anything on the hub (the hub controller's RBAC is not under test here).
  await hubAdmin.resource<ClusterRoleBinding>(resourceTypes.clusterRoleBindings).create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'test-managed-clusters-admin' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:open-cluster-management:managed-clusters' }],
  });
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-agent-'));
  const bootstrapKubeconfigPath = join(dir, 'bootstrap.kubeconfig');
  const bootstrapText = await readFile(hub.adminKubeconfigPath, 'utf8');
  await writeFile(bootstrapKubeconfigPath, bootstrapText, { mode: 0o600 });
  await spokeAdmin.resource<Secret>(resourceTypes.secrets, AGENT_NS).create({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'bootstrap-hub-kubeconfig', namespace: AGENT_NS },
    data: { kubeconfig: Buffer.from(bootstrapText).toString('base64') },
  });
  const hubKubeconfigDir = join(dir, 'hub-kubeconfig');
  const handles: SpokeAgentHandle[] = [];
  const options = (over: Partial<SpokeAgentOptions> = {}): SpokeAgentOptions => {
    const d = defaultAgentOptions();
    return {
      ...d,
      kubeconfig: spoke.adminKubeconfigPath,
      bootstrapKubeconfig: bootstrapKubeconfigPath,
      hubKubeconfigDir,
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
  };
  return {
    hub,
    spoke,
    hubAdmin,
    spokeAdmin,
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
    async hubSecret() {
      try {
        return await spokeAdmin.resource<Secret>(resourceTypes.secrets, AGENT_NS).get('hub-kubeconfig-secret');
      } catch {
        return undefined;
      }
    },
    async stop() {
      for (const h of handles) await h.stop();
      hubAdmin.close();
      if (spokeAdmin !== hubAdmin) spokeAdmin.close();
      await hub.stop();
      if (spoke !== hub) await spoke.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
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
