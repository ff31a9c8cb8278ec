// Registration over gRPC end to end, in one process: the embedded hub (`ocm-ts hub --data-dir` with
// `--enabled-registration-drivers=csr,grpc`, its gRPC CloudEvents server on a fixed loopback port)
// and an agent with `--registration-auth grpc` that joins with a bootstrap token in OCM's
// `config.yaml` format and no bootstrap kubeconfig. The test plays the hub admin (approves the
// cluster's CSRs, accepts the cluster). The agent reaches Joined and Available, saves the hub secret
// with OCM's keys, renews its lease (1 s lease), and keeps renewing after the hub, gRPC server
// included, restarts on the same data dir and port. The waits are deadlines for a loaded machine;
// on a quiet one the whole test takes a few seconds.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseYaml } from '../src/util/yaml.js';
import type { ManagedCluster } from '../src/api/cluster.js';
import { isConditionTrue } from '../src/api/conditions.js';
import { conditionTypes, names } from '../src/api/constants.js';
import type { Lease, Secret } from '../src/api/core.js';
import { ensurePki } from '../src/apiserver/pki/index.js';
import { startSpokeAgent } from '../src/agent/spoke-agent.js';
import { createKubeClient } from '../src/client/rest-client.js';
import { resourceTypes } from '../src/client/resource-types.js';
import type { KubeClient } from '../src/client/types.js';
import { startEmbeddedHub, type EmbeddedHub } from '../src/embedded/embedded-hub.js';
import { resolveHubOptions } from '../src/hub/options.js';
import { realClock } from '../src/util/clock.js';
import { nullLogger } from '../src/util/logger.js';
import { AGENT_NS, autoDecideCsrs, testAgentOptions } from './agent/bootstrap/fixture.js';
import { ensureNamespace } from './agent/controllers/clusters.js';
import { FAST_TIMINGS } from './hub/hub-fixture.js';
import { getIfExists } from './helpers/objects.js';
import { testLogger } from './helpers/test-log.js';
import { waitFor } from './helpers/wait-for.js';

const CLUSTER = 'cluster1';

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

interface RunningHub {
  hub: EmbeddedHub;
  admin: KubeClient;
  stop(): Promise<void>;
}

async function startHub(dataDir: string, grpcPort: number, ca: { certFile: string; keyFile: string }): Promise<RunningHub> {
  const ac = new AbortController();
  const hub = await startEmbeddedHub({
    dataDir,
    apiserverListen: { host: '127.0.0.1', port: 0 },
    bootstrapTokenTtlMs: 3_600_000,
    hubOptions: resolveHubOptions({
      timings: FAST_TIMINGS,
      enabledRegistrationDrivers: ['csr', 'grpc'],
      unimplementedDriverFlags: { grpcCaFile: ca.certFile, grpcKeyFile: ca.keyFile },
      grpcServer: { listen: `127.0.0.1:${grpcPort}`, heartbeatIntervalMs: 500 },
    }).options,
    log: process.env['GRPC_E2E_HUB_LOG'] ? testLogger() : nullLogger(),
    clock: realClock,
    signal: ac.signal,
  });
  const admin = createKubeClient({ kubeconfigPath: hub.adminKubeconfigPath }, { log: nullLogger(), userAgent: 'grpc-e2e' });
  return {
    hub,
    admin,
    async stop() {
      admin.close();
      ac.abort();
      await hub.close();
    },
  };
}

const clusterOf = (admin: KubeClient): Promise<ManagedCluster | undefined> => getIfExists(admin.resource<ManagedCluster>(resourceTypes.managedClusters), CLUSTER);
const leaseOf = (admin: KubeClient): Promise<Lease | undefined> => getIfExists(admin.resource<Lease>(resourceTypes.leases, CLUSTER), names.clusterLease);

test('an agent joins over gRPC, renews its lease, and survives a gRPC server restart', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-grpc-e2e-'));
  // One hook, in order: the agent writes into the dir until it stops, the hub serves it.
  const cleanup: Array<() => Promise<unknown> | void> = [];
  t.after(async () => {
    for (const step of cleanup.reverse()) await step();
    await rm(dir, { recursive: true, force: true });
  });
  // The gRPC CA: signs the agents' client certificates and the server's serving certificate.
  const caPki = await ensurePki(join(dir, 'grpc-ca'));
  const ca = { certFile: join(caPki.dir, 'ca.crt'), keyFile: join(caPki.dir, 'ca.key') };
  const grpcPort = await freePort();
  const hubDir = join(dir, 'hub');
  let hub = await startHub(hubDir, grpcPort, ca);
  cleanup.push(() => hub.stop());

  // The agent's management and spoke cluster is the hub's own API server (its objects live in their own namespace).
  await ensureNamespace(hub.admin, AGENT_NS);
  const bootstrapKubeconfig = parseYaml(await readFile(hub.hub.bootstrapKubeconfigPath, 'utf8')) as { users: { user: { token: string } }[] };
  const bootstrapConfig = join(dir, 'grpc-bootstrap.yaml');
  await writeFile(
    bootstrapConfig,
    [`url: 127.0.0.1:${grpcPort}`, `caData: ${Buffer.from(caPki.caPem).toString('base64')}`, `token: ${bootstrapKubeconfig.users[0]!.user.token}`, ''].join('\n'),
    { mode: 0o600 },
  );
  const hubKubeconfigDir = join(dir, 'hub-kubeconfig');
  const agent = await startSpokeAgent({
    options: testAgentOptions({
      kubeconfig: hub.hub.adminKubeconfigPath,
      hubKubeconfigDir,
      clusterName: CLUSTER,
      registrationAuth: 'grpc',
      grpcBootstrapConfig: bootstrapConfig,
      grpcConfig: join(hubKubeconfigDir, 'config.yaml'),
    }),
    log: testLogger(),
    defaultMetrics: false,
  });
  cleanup.push(() => agent.stop());

  // The hub admin's part, as `ocm-ts accept` does it: once the agent created its ManagedCluster,
  // accept the cluster, then approve its CSRs as they come.
  await waitFor(() => clusterOf(hub.admin), 30_000, { message: 'the agent created its ManagedCluster over gRPC' });
  await hub.admin.resource<ManagedCluster>(resourceTypes.managedClusters).patch(CLUSTER, 'merge', { spec: { hubAcceptsClient: true, leaseDurationSeconds: 1 } });
  const deciding = new AbortController();
  cleanup.push(() => deciding.abort());
  const decided = autoDecideCsrs(hub.admin, CLUSTER, deciding.signal);

  const joined = await waitFor(async () => {
    const c = await clusterOf(hub.admin);
    return c && isConditionTrue(c.status?.conditions, conditionTypes.joined) && isConditionTrue(c.status?.conditions, conditionTypes.available) ? c : undefined;
  }, 30_000, { message: 'cluster1 Joined and Available' });
  assert.ok(joined.status?.version?.kubernetes, 'the status carries the spoke version');

  // The hub secret holds OCM's keys; its config.yaml names the certificate the grpc signer issued.
  const secret = await getIfExists(hub.admin.resource<Secret>(resourceTypes.secrets, AGENT_NS), 'hub-kubeconfig-secret');
  assert.deepEqual(Object.keys(secret?.data ?? {}).sort(), ['agent-name', 'cluster-name', 'config.yaml', 'tls.crt', 'tls.key']);
  const saved = parseYaml(Buffer.from(secret!.data!['config.yaml']!, 'base64').toString()) as Record<string, unknown>;
  assert.equal(saved['url'], `127.0.0.1:${grpcPort}`);
  assert.equal(saved['clientCertFile'], join(hubKubeconfigDir, 'tls.crt'));
  const csrs = await hub.admin.resource(resourceTypes.certificateSigningRequests).list({ labelSelector: `open-cluster-management.io/cluster-name=${CLUSTER}` });
  assert.ok(csrs.items.every((c) => c['spec'] && (c['spec'] as { signerName?: string }).signerName === 'open-cluster-management.io/grpc'));

  // The lease is renewed over gRPC.
  const first = (await waitFor(() => leaseOf(hub.admin), 15_000, { message: 'the cluster lease' })).spec?.renewTime;
  await waitFor(async () => (await leaseOf(hub.admin))?.spec?.renewTime !== first, 15_000, { message: 'the lease renewed' });

  // The hub (and its gRPC server) restarts on the same data dir and port: the agent subscribes again
  // and keeps renewing, and the cluster stays Available.
  deciding.abort();
  await decided;
  await hub.stop();
  const restartedAt = Date.now();
  hub = await startHub(hubDir, grpcPort, ca);
  const renewedAfter = await waitFor(async () => {
    const l = await leaseOf(hub.admin);
    return l?.spec?.renewTime && Date.parse(l.spec.renewTime) > restartedAt ? l : undefined;
  }, 30_000, { message: 'the lease renewed after the gRPC server restart' });
  assert.ok(renewedAfter);
  await waitFor(async () => isConditionTrue((await clusterOf(hub.admin))?.status?.conditions, conditionTypes.available), 30_000, { message: 'Available after the restart' });
});
