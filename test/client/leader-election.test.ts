// Leader election against the embedded API server over HTTPS, with short timings: one leader at a
// time, takeover after an abrupt stop within the lease duration, immediate handover on release,
// and a leader that cannot renew stops leading.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Lease } from '../../src/api/core.js';
import type { KubeObject } from '../../src/api/meta.js';
import { createKubeClient, resourceTypes as R, type KubeClient, type ResourceType } from '../../src/client/index.js';
import { runWithLeaderElection, type LeaderElectionOutcome } from '../../src/client/leader-election.js';
import { startTestApiServer } from '../helpers/embedded-server.js';
import { waitFor } from '../helpers/wait-for.js';

const timings = { leaseDurationMs: 2000, renewDeadlineMs: 1500, retryPeriodMs: 250 };

/** A client whose every call fails once `cut` is set: a process that died or lost its network. */
function cuttable(client: KubeClient): { client: KubeClient; cut(): void } {
  let cut = false;
  const fail = (): never => {
    throw new Error('connection refused');
  };
  const wrapped: KubeClient = {
    get server() {
      return client.server;
    },
    resource<T extends KubeObject = KubeObject>(type: ResourceType, ns?: string) {
      const r = client.resource<T>(type, ns);
      return new Proxy(r, {
        get(target, prop, receiver) {
          const v: unknown = Reflect.get(target, prop, receiver);
          if (typeof v !== 'function') return v;
          return (...args: unknown[]) => (cut ? Promise.reject(new Error('connection refused')) : (v as (...a: unknown[]) => unknown).apply(target, args));
        },
      });
    },
    request: (...args) => (cut ? fail() : client.request(...args)),
    probe: (...args) => (cut ? fail() : client.probe(...args)),
    close: () => client.close(),
  };
  return { client: wrapped, cut: () => void (cut = true) };
}

interface Candidate {
  id: string;
  leading: boolean;
  starts: number;
  ctl: AbortController;
  done: Promise<LeaderElectionOutcome>;
}

function candidate(client: KubeClient, id: string, ns: string): Candidate {
  const c: Candidate = { id, leading: false, starts: 0, ctl: new AbortController(), done: Promise.resolve('cancelled') };
  c.done = runWithLeaderElection({
    client,
    namespace: ns,
    name: 'demo-lock',
    identity: id,
    ...timings,
    signal: c.ctl.signal,
    onStartedLeading: async (signal) => {
      c.leading = true;
      c.starts++;
      await new Promise<void>((r) => signal.addEventListener('abort', () => r(), { once: true }));
      c.leading = false;
    },
  });
  return c;
}

test('should elect exactly one leader, hand over on release and take over after an abrupt stop', async (t) => {
  const srv = await startTestApiServer();
  t.after(() => srv.stop());
  const admin = createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath });
  t.after(() => admin.close());
  await admin.resource(R.namespaces).create({ metadata: { name: 'le' } });

  // Each candidate has its own connection, so one can be cut off without touching the other.
  const clients = ['a', 'b', 'c'].map(() => cuttable(createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath })));
  t.after(() => clients.forEach((c) => c.client.close()));
  const [a, b] = [candidate(clients[0]!.client, 'a', 'le'), candidate(clients[1]!.client, 'b', 'le')];
  await waitFor(() => a.leading || b.leading, 5000);
  // Several retry periods later there is still exactly one leader.
  await new Promise((r) => setTimeout(r, 4 * timings.retryPeriodMs));
  assert.equal(Number(a.leading) + Number(b.leading), 1);
  const [leader, follower] = a.leading ? [a, b] : [b, a];
  const lease = await admin.resource<Lease>(R.leases, 'le').get('demo-lock');
  assert.equal(lease.spec?.holderIdentity, leader.id);
  assert.equal(lease.spec?.leaseDurationSeconds, 2);
  assert.equal(lease.spec?.leaseTransitions, 0);
  assert.match(lease.spec?.renewTime ?? '', /\.\d{6}Z$/);

  // Graceful stop: the lease is released, so the follower leads well before a lease duration.
  const released = Date.now();
  leader.ctl.abort();
  assert.equal(await leader.done, 'cancelled');
  await waitFor(() => follower.leading, 5000);
  assert.ok(Date.now() - released < timings.leaseDurationMs, 'handover after release should not wait for expiry');
  const after = await admin.resource<Lease>(R.leases, 'le').get('demo-lock');
  assert.equal(after.spec?.holderIdentity, follower.id);
  assert.equal(after.spec?.leaseTransitions, 1);

  // Abrupt stop: a third candidate joins, then the leader stops renewing without releasing
  // (its connection is cut, as if the process died). The other takes over within the lease duration.
  const c = candidate(clients[2]!.client, 'c', 'le');
  await new Promise((r) => setTimeout(r, 2 * timings.retryPeriodMs));
  assert.equal(c.leading, false);
  const dead = Date.now();
  clients[follower === a ? 0 : 1]!.cut();
  // The old leader cannot renew (cut connection) and stops leading after the renew deadline.
  assert.equal(await follower.done, 'lost');
  assert.equal(follower.leading, false);
  await waitFor(() => c.leading, timings.leaseDurationMs + 3 * timings.retryPeriodMs * 2.2);
  assert.ok(Date.now() - dead <= timings.leaseDurationMs + 3 * timings.retryPeriodMs * 2.2);
  assert.equal(c.starts, 1);
  c.ctl.abort();
  await c.done;
});
