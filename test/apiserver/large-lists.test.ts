// Large lists over real HTTPS: a list above the server's response cap is refused up front with 413
// and paginates fine (in every representation, with selectors); pages are cut at the cap and
// informers page through them; a 50 MB list streams while /healthz keeps answering.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import type { KubeObject } from '../../src/api/meta.js';
import { createInformer, createKubeClient, resourceTypes as R } from '../../src/client/index.js';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';

const MAX_LIST_BYTES = 256 * 1024;
const NS = 'big';
const COUNT = 24;
/** ~20 KiB each: the namespace holds about twice the cap. */
const PAD = 'x'.repeat(20 * 1024);
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const PARTIAL = 'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io';

describe('apiserver large lists', () => {
  let srv: TestApiServer;
  let raw: RawClient;
  const path = `/api/v1/namespaces/${NS}/configmaps`;

  before(async () => {
    srv = await startTestApiServer({ maxListBytes: MAX_LIST_BYTES });
    raw = rawClient(srv.kubeConfig);
    assert.equal((await raw.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
    for (let i = 0; i < COUNT; i++) {
      const labels = { big: 'yes', ...(i < 3 ? { few: 'yes' } : {}) };
      const res = await raw.request('POST', path, { body: { metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels }, data: { pad: PAD } } });
      assert.equal(res.status, 201, res.text);
    }
  });
  after(async () => {
    raw.close();
    await srv.stop();
  });

  /** Follows continue tokens; returns the item (or row) names and the pages' sizes. */
  async function paginate(query: string, accept?: string): Promise<{ names: string[]; pages: number[]; rvs: Set<string> }> {
    const names: string[] = [];
    const pages: number[] = [];
    const rvs = new Set<string>();
    let cont = '';
    do {
      const res = await raw.request('GET', `${path}?${query}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`, accept ? { headers: { accept } } : {});
      assert.equal(res.status, 200, res.text);
      const entries = (res.json.items ?? res.json.rows) as { metadata?: { name: string }; cells?: unknown[] }[];
      names.push(...entries.map((e) => e.metadata?.name ?? String(e.cells?.[0])));
      pages.push(entries.length);
      rvs.add(res.json.metadata.resourceVersion as string);
      cont = (res.json.metadata.continue as string | undefined) ?? '';
    } while (cont);
    return { names, pages, rvs };
  }

  const all = Array.from({ length: COUNT }, (_, i) => `cm-${String(i).padStart(2, '0')}`);

  for (const [name, accept] of [['JSON', undefined], ['Table', TABLE], ['PartialObjectMetadata', PARTIAL]] as const) {
    it(`should refuse a whole ${name} list above the cap with 413, telling the client to paginate`, async () => {
      const res = await raw.request('GET', path, accept ? { headers: { accept } } : {});
      assert.equal(res.status, 413, res.text.slice(0, 300));
      assert.equal(res.json.kind, 'Status');
      assert.equal(res.json.reason, 'RequestEntityTooLarge');
      assert.equal(res.json.code, 413);
      assert.match(res.json.message, /limit and continue/);
    });

    it(`should serve the same ${name} list in pages, each cut at the cap`, async () => {
      const { names, pages, rvs } = await paginate('limit=500', accept);
      assert.deepEqual(names.filter((n) => n !== 'kube-root-ca.crt'), all);
      assert.ok(pages.length >= 2, `pages: ${pages.join(',')}`);
      assert.ok(pages.every((n) => n > 0 && n * PAD.length <= MAX_LIST_BYTES + PAD.length), `pages: ${pages.join(',')}`);
      assert.equal(rvs.size, 1, 'one consistent snapshot');
    });

    it(`should honour a small limit for ${name} output`, async () => {
      const res = await raw.request('GET', `${path}?limit=2`, accept ? { headers: { accept } } : {});
      assert.equal(res.status, 200);
      assert.equal((res.json.items ?? res.json.rows).length, 2);
      assert.ok(res.json.metadata.continue);
    });
  }

  it('should report remainingItemCount on a page cut by size', async () => {
    const res = await raw.request('GET', `${path}?limit=500`);
    const n = res.json.items.length as number;
    assert.equal(res.json.metadata.remainingItemCount, COUNT + 1 - n); // + kube-root-ca.crt
  });

  it('should apply the cap to what a label selector selects', async () => {
    const few = await raw.request('GET', `${path}?labelSelector=few%3Dyes`);
    assert.equal(few.status, 200);
    assert.deepEqual(few.json.items.map((o: KubeObject) => o.metadata.name), all.slice(0, 3));
    const many = await raw.request('GET', `${path}?labelSelector=big%3Dyes`);
    assert.equal(many.status, 413);
    const { names } = await paginate('labelSelector=big%3Dyes&limit=5');
    assert.deepEqual(names, all);
    const fieldSelected = await paginate('fieldSelector=metadata.name%3Dcm-07&limit=1');
    assert.deepEqual(fieldSelected.names, ['cm-07']);
  });

  it('should let an informer list in pages across the cap', async () => {
    const client = createKubeClient({ kubeconfigPath: srv.adminKubeconfigPath });
    const ac = new AbortController();
    try {
      const informer = createInformer(client.resource(R.configMaps, NS));
      informer.start(ac.signal);
      await informer.waitForSync(AbortSignal.timeout(10_000));
      assert.deepEqual(informer.lister.list().map((o) => o.metadata.name).filter((n) => n !== 'kube-root-ca.crt').sort(), all);
    } finally {
      ac.abort();
      client.close();
    }
  });
});

describe('apiserver list streaming', () => {
  it('should stream a 50 MB list while /healthz keeps answering promptly on another connection', async () => {
    const srv = await startTestApiServer();
    const raw = rawClient(srv.kubeConfig);
    try {
      assert.equal((await raw.request('POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status, 201);
      // Written straight to the store: 50 objects of 1 MB, each with many small fields (as costly
      // to parse and encode as real objects, unlike one long string).
      const big: Record<string, string> = {};
      for (let k = 0; k < 8000; k++) big[`key-${k}`] = `value "${k}" `.repeat(10);
      for (let i = 0; i < 50; i++) {
        srv.store.create(`/core/configmaps/${NS}/s-${i}`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `s-${i}`, namespace: NS, uid: `u-${i}`, creationTimestamp: '2024-01-01T00:00:00Z' }, data: big } as KubeObject);
      }
      await srv.store.flush();
      const health = rawClient(srv.kubeConfig);
      await health.request('GET', '/healthz'); // an open keep-alive connection
      const latencies: number[] = [];
      let listing = true;
      // Client and server share this event loop, so a probe is timed from when it was due (5 ms
      // after the previous answer): a server blocking the loop delays the timer as much as the answer.
      // On a loaded machine the process also waits for a core; blocking code burns CPU all along,
      // so a probe is charged the smaller of its wall time and the CPU time used meanwhile.
      const probe = (async () => {
        while (listing) {
          const due = performance.now() + 5;
          const cpu = process.cpuUsage();
          await new Promise((r) => setTimeout(r, 5));
          const res = await health.request('GET', '/healthz');
          assert.equal(res.status, 200);
          const used = process.cpuUsage(cpu);
          latencies.push(Math.min(performance.now() - due, (used.user + used.system) / 1000));
        }
      })();
      const bytes = await new Promise<number>((resolve, reject) => {
        const u = new URL(srv.url);
        const kc = srv.kubeConfig.getCurrentUser()!;
        const dec = (v?: string): string => Buffer.from(v ?? '', 'base64').toString('utf8');
        request({ host: u.hostname, port: u.port, path: `/api/v1/namespaces/${NS}/configmaps`, ca: srv.server.pki.caPem, cert: dec(kc.certData), key: dec(kc.keyData), agent: false }, (res) => {
          assert.equal(res.statusCode, 200);
          assert.equal(res.headers['content-length'], undefined, 'streamed, not built in memory');
          let n = 0;
          res.on('data', (c: Buffer) => (n += c.length));
          res.on('end', () => resolve(n));
          res.on('error', reject);
        }).on('error', reject).end();
      });
      listing = false;
      await probe;
      assert.ok(bytes > 50 * 1024 * 1024, `${bytes} bytes`);
      assert.ok(latencies.length >= 3, `${latencies.length} probes`);
      const worst = Math.max(...latencies);
      // One synchronous encoding of the whole list took 1,000-1,200 ms; streamed, the probes wait tens
      // of ms (a loaded 2-core CI machine adds its own scheduling delays, hence the margin).
      assert.ok(worst < 500, `worst /healthz latency ${worst.toFixed(0)} ms over ${latencies.length} probes`);
      health.close();
    } finally {
      raw.close();
      await srv.stop();
    }
  });
});
