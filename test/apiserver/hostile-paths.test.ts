// Request paths built to make a regular expression backtrack: answered at once, never blocking the
// event loop (a run of slashes once cost quadratic time in the trailing-slash trim).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type RawClient } from '../helpers/raw-client.js';
import { useRawServer } from '../helpers/raw-server.js';

describe('apiserver hostile paths', () => {
  let raw: RawClient;
  useRawServer((_s, r) => {
    raw = r;
  });

  it('should answer non-resource paths with long runs of slashes without blocking', async () => {
    const delay = monitorEventLoopDelay({ resolution: 5 });
    delay.enable();
    const paths = ['/healthz', '/api', '/apis/x', '/version'].map((p) => `${p}${'/'.repeat(15_000)}x`);
    const answers = await Promise.all(paths.map((p) => raw.request('GET', p)));
    delay.disable();
    for (const res of answers) {
      assert.equal(res.status, 404, res.text);
      assert.equal(res.json?.kind, 'Status');
    }
    // The quadratic trim blocked ~770 ms here; the bound leaves room for a loaded 2-core CI machine.
    assert.ok(delay.max / 1e6 < 400, `event loop blocked ${delay.max / 1e6} ms`);
    assert.equal((await raw.request('GET', `/healthz${'/'.repeat(100)}`)).status, 200);
  });
});
