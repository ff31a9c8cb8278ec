// Two replicas of the agent on one management cluster, with leader election and short timings:
// exactly one runs the start sequence; when it dies without releasing the lock, the other takes
// over within the lease duration and carries on with the same credentials (no second CSR, the hub
// kubeconfig secret kept). Each replica has its own hub kubeconfig directory, as each pod has.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Lease } from '../../../src/api/core.js';
import { resourceTypes } from '../../../src/client/resource-types.js';
import type { SpokeAgentHandle } from '../../../src/agent/spoke-agent.js';
import { waitFor } from '../../helpers/wait-for.js';
import { startAgentEnv } from './fixture.js';

const leaderElection = {
  disabled: false,
  namespace: '',
  name: 'registration-agent-lock',
  leaseDurationMs: 2000,
  renewDeadlineMs: 1500,
  retryPeriodMs: 250,
  // Stopping a replica leaves the lock held, as a killed pod would.
  releaseOnCancel: false,
};

test('should run one replica at a time and fail over to the other after the leader dies', async (t) => {
  const env = await startAgentEnv(t);
  env.decideCsrs('Approved');
  const replicas: SpokeAgentHandle[] = [];
  for (const name of ['r1', 'r2']) replicas.push(await env.startAgent({ leaderElection, hubKubeconfigDir: join(env.dir, `hub-kubeconfig-${name}`) }));
  await waitFor(() => replicas.find((r) => r.status().phase === 'main'), 20_000, { message: 'a leader in the main phase' });
  // Several retry periods later still exactly one replica leads; the other waits to be elected.
  await new Promise((r) => setTimeout(r, 4 * leaderElection.retryPeriodMs));
  const leading = replicas.filter((r) => r.status().leading);
  assert.equal(leading.length, 1);
  const leader = leading[0]!;
  const follower = replicas.find((r) => r !== leader)!;
  assert.equal(follower.status().phase, 'electing');
  assert.equal(follower.status().runs, 0, 'the follower never ran the start sequence');
  const lease = await env.spokeAdmin.resource<Lease>(resourceTypes.leases, 'open-cluster-management-agent').get('registration-agent-lock');
  assert.equal(lease.spec?.leaseDurationSeconds, 2);
  assert.ok(await env.hubSecret(), 'the leader saved the hub kubeconfig secret');
  assert.equal((await env.csrs('cluster1')).length, 1);

  // The leader dies: no release, so the follower waits for the lease to expire, then takes over.
  const died = Date.now();
  await leader.stop();
  await waitFor(() => follower.status().leading, leaderElection.leaseDurationMs + 3000, { message: 'follower leads' });
  assert.ok(Date.now() - died <= leaderElection.leaseDurationMs + 3 * leaderElection.retryPeriodMs * 2.2 + 500, `took over after ${Date.now() - died} ms`);
  await waitFor(() => follower.status().phase === 'main', 20_000, { message: 'follower in the main phase' });
  assert.equal(follower.status().bootstraps, 0, 'the follower reuses the saved credentials');
  assert.equal((await env.csrs('cluster1')).length, 1, 'no second CSR');
  assert.ok(await env.hubSecret(), 'hub kubeconfig secret kept');
  const after = await env.spokeAdmin.resource<Lease>(resourceTypes.leases, 'open-cluster-management-agent').get('registration-agent-lock');
  assert.equal(after.spec?.leaseTransitions, 1);
});

test('should run without a lock when leader election is disabled', async (t) => {
  const env = await startAgentEnv(t);
  env.decideCsrs('Approved');
  const agent = await env.startAgent({ leaderElection: { ...leaderElection, disabled: true } });
  await waitFor(() => agent.status().phase === 'main', 20_000, { message: 'main phase' });
  assert.equal(agent.status().leading, true);
  await assert.rejects(env.spokeAdmin.resource<Lease>(resourceTypes.leases, 'open-cluster-management-agent').get('registration-agent-lock'), /not found/);
});
