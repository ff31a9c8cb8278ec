// Property-based fuzzing of every HTTP entry point of the embedded API server (fast-check), as the
// admin, a bootstrap-token user, cluster1's agent, the hub controller, an unprivileged user,
// anonymous, and a forged client certificate. For every generated request:
// - the server stays up (/healthz answers 200 afterwards);
// - the answer is a Kubernetes object or a Status (kind Status, apiVersion v1, status Failure,
//   code = HTTP status, a reason), except health text, the OpenAPI protobuf and watch streams
//   (whose first events are read for a short while, then the connection dropped);
// - never a 5xx for client input (kube-apiserver's 504 for a future resourceVersion aside);
// - nothing outside the requester's rights changes in the store (refused requests, reads and dry
//   runs write nothing; other writes are checked with SubjectAccessReviews);
// - the event loop is never blocked more than 100 ms; no built-in prototype gets polluted.
//
// Runs are seeded and bounded so `npm test` stays deterministic and quick. Environment:
//   OCM_TS_FUZZ_RUNS=20000   base runs per property (default 150; properties scale it)
//   OCM_TS_FUZZ_SEED=1234    seed (default fixed); a failure prints the seed and path to replay
//   OCM_TS_FUZZ_COLLECT=1    do not stop at the first failure: list every distinct one at the end
// e.g. OCM_TS_FUZZ_RUNS=5000 OCM_TS_FUZZ_COLLECT=1 node --import tsx --test --test-timeout=0 test/fuzz/http-fuzz.test.ts
// Known failures being fixed elsewhere are listed, with reasons, in known-failures.ts.

import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fuzzOptionsFromEnv } from './fuzz-options.js';
import { startFuzzTarget, SEED_NAMESPACES, type FuzzTarget } from './fuzz-target.js';
import { FuzzRunner } from './fuzz-runner.js';
import { existingObjectPaths, rawRequestArbitrary, requestArbitrary, watchRequestArbitrary, type FuzzCase, type RequestContext } from './gen-requests.js';
import { plausibleArbitrary } from './gen-plausible.js';
import { pathArbitrary } from './gen-paths.js';
import { CLUSTER, IDENTITY_NAMES, type IdentityName } from './identities.js';
import { KNOWN_FAILURES } from './known-failures.js';
import { LoopMonitor } from './process-probes.js';
import { SEED_NAME } from './templates.js';

const opts = fuzzOptionsFromEnv();
const NON_ADMIN: IdentityName[] = IDENTITY_NAMES.filter((n) => n !== 'admin');
/** Long campaigns need more than the default per-test timeout. */
const timeout = Math.max(120_000, opts.runs * 400);

describe('embedded API server under fuzzing', { timeout }, () => {
  let target: FuzzTarget;
  let loop: LoopMonitor;
  let runner: FuzzRunner;
  let ctx: RequestContext;

  before(async () => {
    target = await startFuzzTarget();
    loop = new LoopMonitor();
    runner = new FuzzRunner(target, loop, { collect: opts.collect, known: KNOWN_FAILURES });
    ctx = { catalogue: target.catalogue, namespaces: target.namespaces, names: target.names, csrPem: target.csrPem, cluster: CLUSTER };
  });
  after(async () => {
    runner?.close();
    loop?.close();
    await target?.stop();
  });

  const run = async <T>(t: TestContext, arb: fc.Arbitrary<T>, predicate: (v: T) => Promise<boolean>, runs: number): Promise<void> => {
    const requestsBefore = runner.requests;
    const knownBefore = new Map(runner.knownHits);
    runner.startProperty();
    await fc.assert(fc.asyncProperty(arb, predicate), { seed: opts.seed, numRuns: Math.max(1, Math.round(runs)), includeErrorInReport: true });
    const mem = process.memoryUsage();
    t.diagnostic(`${runner.requests - requestsBefore} requests (seed ${opts.seed}); heap ${(mem.heapUsed / 2 ** 20).toFixed(0)} MiB, rss ${(mem.rss / 2 ** 20).toFixed(0)} MiB`);
    t.diagnostic(`answers: ${[...runner.outcomes].sort().map(([k, n]) => `${k}: ${n}`).join(', ')}; successful non-admin writes checked: ${runner.rightsChecked}; certificates issued so far: ${runner.certificatesIssued.count}`);
    runner.outcomes.clear();
    runner.rightsChecked = 0;
    for (const [id, n] of runner.knownHits) {
      const delta = n - (knownBefore.get(id) ?? 0);
      if (delta > 0) t.diagnostic(`known failure set aside ${delta}×: ${id}`);
    }
    if (opts.collect && runner.findings.size > 0) {
      const report = runner.findings.render();
      console.log(`\n=== ${runner.findings.size} distinct findings ===\n${report}\n`);
      assert.fail(`${runner.findings.size} distinct findings (listed above)`);
    }
  };

  /** Hostile requests as `identities`, and plausible ones (over each identity's grants) as often. */
  const mixed = (identities: IdentityName[], hostile: fc.Arbitrary<FuzzCase>): fc.Arbitrary<FuzzCase> => {
    const plausible = identities.map((n) => plausibleArbitrary(n, target.grants[n], { pem: target.csrPem, requests: target.csrRequests, names: target.csrNames }, target.identities[n].superuser)).filter((a): a is fc.Arbitrary<FuzzCase> => a !== undefined);
    return plausible.length === 0 ? hostile : fc.oneof(hostile, fc.oneof(...plausible));
  };

  it('answers arbitrary and plausible requests of every non-admin identity safely', { timeout }, async (t) => {
    await run(t, mixed(NON_ADMIN, requestArbitrary(ctx, NON_ADMIN)), (c) => runner.property(c), opts.runs * 2);
  });

  it('answers writes, patches and deletes of existing objects safely, for every identity', { timeout }, async (t) => {
    const paths = fc.oneof({ weight: 4, arbitrary: existingObjectPaths(ctx, SEED_NAMESPACES, SEED_NAME) }, { weight: 1, arbitrary: pathArbitrary(ctx) });
    await run(t, requestArbitrary(ctx, NON_ADMIN, paths), (c) => runner.property(c), opts.runs);
  });

  it('serves watches as event streams or refuses them with a Status', { timeout }, async (t) => {
    await run(t, watchRequestArbitrary(ctx, [...IDENTITY_NAMES]), (c) => runner.property(c), opts.runs / 3);
  });

  it('answers malformed HTTP with a Status and keeps serving', { timeout }, async (t) => {
    await run(t, rawRequestArbitrary(['admin', 'anonymous', 'forged-cert']), (c) => runner.rawProperty(c), opts.runs / 3);
  });

  // Last: the admin may delete or rewrite what the other properties rely on.
  it('answers arbitrary requests of the admin safely', { timeout }, async (t) => {
    const paths = fc.oneof({ weight: 3, arbitrary: pathArbitrary(ctx) }, { weight: 1, arbitrary: existingObjectPaths(ctx, SEED_NAMESPACES, SEED_NAME) });
    await run(t, mixed(['admin'], requestArbitrary(ctx, ['admin'], paths)), (c) => runner.property(c), opts.runs);
  });
});
