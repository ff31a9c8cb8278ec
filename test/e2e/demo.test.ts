// `ocm-ts demo --clusters 2` as a user runs it: reaches a fully available fleet, stops cleanly on
// Ctrl-C (SIGINT → `stopped`, exit 0); a second run on the same directory is ready again without new CSRs.
// Ctrl-C while the fleet is still starting (hub up, a spoke half-started) also stops everything, exit 0.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { connect } from 'node:net';
import { cleanupAll, kubeRequest, loadKubeConfig, runCli, tempDir } from './cli-helpers.js';

after(cleanupAll);

const READY = /^fleet ready: 2\/2 clusters accepted, joined and available$/;

async function csrNames(dataDir: string): Promise<string[]> {
  const r = await kubeRequest(loadKubeConfig(join(dataDir, 'hub', 'admin.kubeconfig')), 'GET', '/apis/certificates.k8s.io/v1/certificatesigningrequests');
  assert.equal(r.status, 200, r.text);
  return (r.json.items as { metadata: { name: string } }[]).map((c) => c.metadata.name).sort();
}

test('demo --clusters 2: fleet ready, SIGINT stops it cleanly; a second run is ready again with no new CSR', async () => {
  const dir = await tempDir('demo');
  const first = runCli(['demo', '--clusters', '2', '--data-dir', dir, '--refresh', '500ms']);
  await first.waitForLine(READY, 90_000);
  const out = first.stdout();
  assert.match(out, /^ocm-ts demo: 1 hub and 2 spoke clusters in /m);
  assert.match(out, /^cluster1: .*agent started$/m);
  assert.match(out, /^cluster2: .*agent started$/m);
  // The live table follows the ready line.
  await first.waitForLine(/2\/2 ready/, 10_000);
  // CSRs while the hub still runs (one per cluster; the hub's admin kubeconfig is in <dir>/hub).
  const csrs = await csrNames(dir);
  assert.equal(csrs.length, 2, `one CSR per cluster: ${csrs.join(', ')}`);
  assert.equal(await first.stop('SIGINT', 30_000), 0, first.describe());
  assert.match(first.stdout(), /^stopped$/m);

  const second = runCli(['demo', '--clusters', '2', '--data-dir', dir, '--refresh', '500ms']);
  await second.waitForLine(READY, 90_000);
  assert.match(second.stdout(), /restarting the hub from /);
  assert.deepEqual(await csrNames(dir), csrs, 'no new CSR on the second run');
  assert.equal(await second.stop('SIGINT', 30_000), 0, second.describe());
  assert.match(second.stdout(), /^stopped$/m);
  assert.equal(second.stderr().trim(), '', 'nothing on stderr');
});

/** Whether something still listens on the URL's port (a leftover server of the stopped demo). */
function listening(url: string): Promise<boolean> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const s = connect({ host: u.hostname, port: Number(u.port) });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

for (const [moment, line] of [
  ['the hub is ready and cluster1 is starting', /^hub ready at (https:\/\/\S+)/],
  ['cluster1 is up and cluster2 is half-started', /^cluster1: spoke API server at (https:\/\/\S+), agent started$/],
] as const) {
  test(`Ctrl-C while ${moment}: everything stops, exit 0 within seconds`, async () => {
    const dir = await tempDir('demo-int');
    const demo = runCli(['demo', '--clusters', '3', '--data-dir', dir, '--refresh', '500ms']);
    const url = (await demo.waitForLine(line, 60_000))[1]!;
    const t0 = Date.now();
    // A generous kill timeout: the assertion on the elapsed time is what fails the test, not a SIGKILL.
    const code = await demo.stop('SIGINT', 20_000);
    const elapsed = Date.now() - t0;
    assert.equal(code, 0, demo.describe());
    assert.ok(elapsed < 10_000, `stopped after ${elapsed} ms: ${demo.describe()}`);
    assert.match(demo.stdout(), /^stopped$/m, demo.describe());
    assert.doesNotMatch(demo.stderr(), /interrupted/, demo.describe());
    assert.equal(await listening(url), false, `${url} still answers after the demo exited`);
  });
}
