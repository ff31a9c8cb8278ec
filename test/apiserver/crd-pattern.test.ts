// CRD `pattern` over real HTTPS: RE2 evaluation (a catastrophic-backtracking pattern cannot stall
// the server), patterns RE2 cannot compile refused at CRD creation, maxLength checked first.

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTestApiServer, type TestApiServer } from '../helpers/embedded-server.js';
import { rawClient, type RawClient } from '../helpers/raw-client.js';
import { waitFor } from '../helpers/wait-for.js';

const GROUP = 'patterns.example.com';
const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/default/widgets`;

function crd(plural: string, kind: string, fields: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: { plural, kind, singular: kind.toLowerCase(), listKind: `${kind}List` },
      versions: [{
        name: 'v1', served: true, storage: true,
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: fields } } } },
      }],
    },
  };
}

const widget = (name: string, spec: Record<string, unknown>): Record<string, unknown> =>
  ({ apiVersion: `${GROUP}/v1`, kind: 'Widget', metadata: { name }, spec });

describe('apiserver CRD patterns', () => {
  let srv: TestApiServer;
  let raw: RawClient;
  before(async () => {
    srv = await startTestApiServer();
    raw = rawClient(srv.kubeConfig);
    const res = await raw.request('POST', CRD_PATH, {
      body: crd('widgets', 'Widget', {
        evil: { type: 'string', pattern: '^(a+)+$' },
        short: { type: 'string', maxLength: 8, pattern: '^(a+)+$' },
        taint: { type: 'string', pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$' },
      }),
    });
    assert.equal(res.status, 201, res.text);
    await waitFor(async () => (await raw.request('GET', WIDGETS)).status === 200, 5000, { message: 'widgets served' });
  });
  after(async () => {
    raw.close();
    await srv.stop();
  });

  it('should answer ^(a+)+$ against 40 a and ! with a 422 at once while /healthz keeps answering', async () => {
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const started = performance.now();
    const [bad, health] = await Promise.all([
      raw.request('POST', WIDGETS, { body: widget('w1', { evil: `${'a'.repeat(40)}!` }) }),
      raw.request('GET', '/healthz'),
    ]);
    const elapsed = performance.now() - started;
    delay.disable();
    assert.equal(bad.status, 422, bad.text);
    assert.equal(bad.json.kind, 'Status');
    assert.equal(bad.json.reason, 'Invalid');
    assert.match(bad.json.message, /spec\.evil: Invalid value: "a{40}!": spec\.evil in body should match '\^\(a\+\)\+\$'/);
    assert.equal(health.status, 200);
    // Backtracking on 40 characters would hold the event loop for hours (2^40 steps): bounds well
    // above a busy test machine's garbage-collection pauses still tell the two apart.
    assert.ok(elapsed < 5000, `answered in ${elapsed} ms`);
    assert.ok(delay.max / 1e6 < 1000, `event loop blocked ${delay.max / 1e6} ms`);
    const good = await raw.request('POST', WIDGETS, { body: widget('w2', { evil: 'aaaa' }) });
    assert.equal(good.status, 201, good.text);
  });

  it('should refuse an oversized value by maxLength before running the pattern', async () => {
    const started = performance.now();
    const res = await raw.request('POST', WIDGETS, { body: widget('w3', { short: `${'a'.repeat(100_000)}!` }) });
    assert.equal(res.status, 422, res.text);
    assert.match(res.json.message, /spec\.short: Too long: may not be more than 8 bytes/);
    assert.doesNotMatch(res.json.message, /should match/);
    assert.ok(performance.now() - started < 1000);
  });

  it('should keep the real OCM label-key pattern working', async () => {
    assert.equal((await raw.request('POST', WIDGETS, { body: widget('w4', { taint: 'cluster.open-cluster-management.io/unreachable' }) })).status, 201);
    const bad = await raw.request('POST', WIDGETS, { body: widget('w5', { taint: '-bad' }) });
    assert.equal(bad.status, 422, bad.text);
  });

  it('should refuse at creation a CRD whose pattern RE2 cannot compile, naming the field', async () => {
    for (const [pattern, why] of [['^(?!x)a$', 'invalid or unsupported Perl syntax: `(?!`'], ['^(a)\\1$', 'invalid escape sequence: `\\1`']] as const) {
      const res = await raw.request('POST', CRD_PATH, { body: crd('gadgets', 'Gadget', { name: { type: 'string', pattern } }) });
      assert.equal(res.status, 422, res.text);
      assert.equal(res.json.kind, 'Status');
      assert.equal(res.json.apiVersion, 'v1');
      assert.equal(res.json.status, 'Failure');
      assert.equal(res.json.reason, 'Invalid');
      assert.equal(res.json.details.name, `gadgets.${GROUP}`);
      const cause = res.json.details.causes.find((c: { field: string }) => c.field.endsWith('.pattern'));
      assert.equal(cause.field, 'spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[name].pattern');
      assert.equal(cause.message, `Invalid value: ${JSON.stringify(pattern)}: must be a valid regular expression, but isn't: error parsing regexp: ${why}`);
    }
    assert.equal((await raw.request('GET', `${CRD_PATH}/gadgets.${GROUP}`)).status, 404);
  });
});
