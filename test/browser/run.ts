// `npm run test:browser`: Debian's chromium, driven by playwright-core, loads the dashboard of a
// running demo and checks what a person would see: N clusters turning Available live, a pending
// cluster accepted with the button and joining, and a stopped agent's cluster turning Unknown
// (its lease duration shortened to 1 s). Screenshots go to test-output/browser/.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PassThrough } from 'node:stream';
import { chromium, type Page } from 'playwright-core';
import type { ManagedCluster } from '../../src/api/cluster.js';
import type { Secret } from '../../src/api/core.js';
import { names } from '../../src/api/constants.js';
import { defaultAgentOptions } from '../../src/agent/options/agent-options.js';
import { startSpokeAgent } from '../../src/agent/spoke-agent.js';
import { startEmbeddedApiServer } from '../../src/apiserver/embedded.js';
import { runDemo } from '../../src/cli/demo.js';
import { createKubeClient } from '../../src/client/rest-client.js';
import { resourceTypes } from '../../src/client/resource-types.js';
import { realClock } from '../../src/util/clock.js';
import { nullLogger } from '../../src/util/logger.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CLUSTERS = Number(process.env.BROWSER_TEST_CLUSTERS ?? '3');
const OUT = resolve(process.env.TEST_OUTPUT_DIR ?? 'test-output', 'browser');
const WAIT_MS = 120_000;

function step(line: string): void {
  process.stdout.write(`browser: ${line}\n`);
}

/** Resolves with the first line of the demo's output that matches. */
function waitForLine(out: PassThrough, re: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolvePromise, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`the demo never printed ${re}: ${buf.slice(-2000)}`)), WAIT_MS);
    out.on('data', (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      const m = re.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolvePromise(m);
      }
    });
  });
}

const availableCount = (page: Page): Promise<number> => page.locator('#fleet tr[data-cluster] td.available .cond-True').count();

async function main(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    process.stderr.write(`browser tests: no chromium at ${CHROMIUM}. Install Debian's package "chromium" (apt-get install -y chromium) or set CHROMIUM_PATH.\n`);
    process.exit(1);
  }
  await mkdir(OUT, { recursive: true });
  const dir = await mkdtemp(join(tmpdir(), 'ocm-ts-browser-'));
  const ac = new AbortController();
  const out = new PassThrough();
  const dashboardLine = waitForLine(out, /dashboard: (https:\/\/\S+)\/ \(sign in with the token in (\S+)\)/);
  const demo = runDemo({ dataDir: join(dir, 'demo'), clusters: CLUSTERS, refreshMs: 1000, clock: realClock, signal: ac.signal, out, dashboard: { host: '127.0.0.1', port: 0 } });
  demo.catch((err: unknown) => out.write(`demo failed: ${String(err)}\n`));
  const userDataDir = join(dir, 'chromium-profile');
  const cleanups: (() => Promise<void>)[] = [];
  try {
    const [, url, tokenPath] = await dashboardLine;
    step(`dashboard at ${url}`);
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM,
      headless: true,
      ignoreHTTPSErrors: true,
      viewport: { width: 1280, height: 900 },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    cleanups.push(() => context.close());
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(WAIT_MS);

    // Nothing but the login page without a token.
    await page.goto(`${url!}/`);
    assert.match(page.url(), /\/login$/);
    await page.fill('#token', (await readFile(tokenPath!, 'utf8')).trim());
    await page.screenshot({ path: join(OUT, '01-login.png') });
    await page.click('#login');
    await page.waitForSelector('#fleet');
    const first = await availableCount(page);
    step(`signed in; ${first}/${CLUSTERS} available at first sight`);

    // The clusters turn Available as the stream reports them (no reload).
    await page.locator('#fleet tr[data-cluster] td.available .cond-True').nth(CLUSTERS - 1).waitFor();
    assert.equal(await availableCount(page), CLUSTERS);
    assert.equal(await page.locator('#live.on').count(), 1);
    step(`${CLUSTERS}/${CLUSTERS} clusters Available`);
    await page.click('#fleet tr[data-cluster="cluster1"]');
    await page.waitForSelector('tr[data-timeline="cluster1"] li.done[data-step="available"]');
    await page.screenshot({ path: join(OUT, '02-fleet-available.png'), fullPage: true });

    // A cluster the hub has not accepted: its own spoke and agent, joined with the demo's bootstrap kubeconfig.
    const hubDir = join(dir, 'demo', 'hub');
    const spoke = await startEmbeddedApiServer({ dataDir: join(dir, 'extra'), listen: { host: '127.0.0.1', port: 0 }, log: nullLogger(), clock: realClock });
    cleanups.push(() => spoke.close());
    const spokeClient = createKubeClient({ kubeconfigPath: spoke.adminKubeconfigPath });
    cleanups.push(async () => spokeClient.close());
    await spokeClient.resource(resourceTypes.namespaces).create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: names.agentNamespace } });
    const bootstrap = await readFile(join(hubDir, 'bootstrap.kubeconfig'));
    await spokeClient.resource<Secret>(resourceTypes.secrets, names.agentNamespace).create({
      apiVersion: 'v1', kind: 'Secret', metadata: { name: names.bootstrapSecret, namespace: names.agentNamespace }, data: { kubeconfig: bootstrap.toString('base64') },
    });
    const agent = await startSpokeAgent({
      options: { ...defaultAgentOptions(), kubeconfig: spoke.adminKubeconfigPath, clusterName: 'extra', bootstrapKubeconfig: join(hubDir, 'bootstrap.kubeconfig'), hubKubeconfigDir: join(dir, 'extra-hub-kubeconfig'), spokeExternalServerUrls: [spoke.url] },
      log: nullLogger(), clock: realClock, defaultMetrics: false,
    });
    let agentStopped = false;
    cleanups.push(async () => {
      if (!agentStopped) await agent.stop();
    });
    await page.waitForSelector('#accept-extra');
    await page.waitForSelector('tr[data-csr]');
    await page.screenshot({ path: join(OUT, '03-pending.png'), fullPage: true });
    step('cluster extra waits for the hub; accepting it with the button');
    await page.click('#accept-extra');
    await page.waitForSelector('#notice.ok');
    await page.waitForSelector('#fleet tr[data-cluster="extra"] td.available .cond-True');
    await page.click('#fleet tr[data-cluster="extra"]');
    await page.waitForSelector('tr[data-timeline="extra"] li.done[data-step="available"]');
    assert.equal(await page.locator('tr[data-timeline="extra"] li.done').count(), 7);
    await page.screenshot({ path: join(OUT, '04-accepted.png'), fullPage: true });
    step('cluster extra joined and is Available');

    // Its agent stops: with a 1 s lease the hub marks it Unknown after 5 s without renewal.
    const admin = createKubeClient({ kubeconfigPath: join(hubDir, 'admin.kubeconfig') });
    cleanups.push(async () => admin.close());
    await admin.resource<ManagedCluster>(resourceTypes.managedClusters).patch('extra', 'merge', { spec: { leaseDurationSeconds: 1 } });
    await new Promise((r) => setTimeout(r, 1500));
    await agent.stop();
    agentStopped = true;
    step('agent of extra stopped');
    await page.waitForSelector('#fleet tr[data-cluster="extra"] td.available .cond-Unknown');
    await page.screenshot({ path: join(OUT, '05-unknown.png'), fullPage: true });
    step('cluster extra turned Unknown');
    step(`screenshots in ${OUT}`);
  } finally {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
    ac.abort();
    await demo.catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`browser tests failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  },
);
