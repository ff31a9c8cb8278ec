// Certificate rotation (spoke-agent.md §10.3 B.3, §10.5, §10.7): with a signer issuing certificates of
// a few seconds, the main-phase register controller creates a new CSR once 75–80 % of the lifetime
// has elapsed, stores the new certificate without restarting, the hub client keeps working with it,
// and ClusterCertificateRotated is written on the ManagedCluster. The hub here is its own spoke.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ManagedCluster } from '../../../src/api/cluster.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import { parseCertificate } from '../../../src/util/x509.js';
import { waitFor } from '../../helpers/wait-for.js';
import { createAcceptedCluster, createClusterLease } from '../controllers/clusters.js';
import { startAgentEnv } from './fixture.js';

const unb64 = (s: string | undefined): string => Buffer.from(s ?? '', 'base64').toString();

test('should rotate a short-lived certificate without a restart (hub is its own spoke)', async (t) => {
  const env = await startAgentEnv(t, { sameServer: true, signingDurationMs: 6000 });
  env.decideCsrs();
  // Liveness off: only rotation may renew the certificate here.
  const agent = await env.startAgent({ timings: { livenessPeriodMs: 0 } as never });
  await waitFor(() => agent.status().phase === 'main', 15_000, { message: 'main phase' });
  await createClusterLease(env.hubAdmin, 'cluster1');
  await createAcceptedCluster(env.hubAdmin, 'cluster1');
  const firstCert = parseCertificate(unb64((await env.hubSecret())?.data?.['tls.crt']));

  const rotated = await waitFor(async () => {
    const c = parseCertificate(unb64((await env.hubSecret())?.data?.['tls.crt']));
    return c.serialNumber !== firstCert.serialNumber ? c : undefined;
  }, 15_000, { message: 'certificate rotated' });
  assert.ok(rotated.notAfter > firstCert.notAfter);
  assert.ok((await env.csrs('cluster1')).length >= 2, 'a new CSR was created');
  assert.equal(agent.status().runs, 1, 'no restart');
  assert.equal(agent.status().bootstraps, 1);

  // The condition is written by the main-phase controller with the rotated credentials.
  const clusters = env.hubAdmin.resource<ManagedCluster>(resourceTypes.managedClusters);
  const cond = await waitFor(async () => (await clusters.get('cluster1')).status?.conditions?.find((c) => c.type === 'ClusterCertificateRotated' && c.status === 'True'), 10_000, {
    message: 'ClusterCertificateRotated',
  });
  assert.equal(cond.reason, 'ClientCertificateUpdated');
  assert.match(cond.message, /^client certificate rotated starting from \d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000 UTC to /);

  // After the first certificate expired, the agent still talks to the hub (status keeps updating).
  await waitFor(() => Date.now() > firstCert.notAfter.getTime() + 500, 15_000);
  await waitFor(async () => (await clusters.get('cluster1')).status?.conditions?.some((c) => c.type === 'ManagedClusterJoined' && c.status === 'True'), 10_000, { message: 'Joined' });
  assert.equal(agent.status().runs, 1, 'still no restart');
});

test('should restart and bootstrap again once the hub certificate expired in the main phase (liveness)', async (t) => {
  const env = await startAgentEnv(t, { signingDurationMs: 3000 });
  env.decideCsrs();
  const agent = await env.startAgent();
  await waitFor(() => agent.status().phase === 'main', 15_000, { message: 'main phase' });
  // The hub stops approving: rotation cannot succeed and the certificate expires.
  await env.stopDeciding();
  await waitFor(() => agent.status().runs >= 2 && agent.status().bootstraps >= 2, 15_000, { message: 'restarted into bootstrap by the liveness check' });
  assert.equal(agent.status().phase, 'bootstrap');
  const res = await waitFor(async () => (await env.csrs('cluster1')).length >= 2, 10_000, { message: 'new CSR' });
  assert.ok(res);
});
