import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFromWorker, parseToWorker, type WorkerReport } from './worker-protocol.js';

const config = { names: ['a1', 'a2'], spokeUrl: 'https://127.0.0.1:1', spokeAdminKubeconfig: '/k', bootstrapKubeconfig: '/b', workDir: '/w', hubHostPort: '127.0.0.1:2', reportIntervalMs: 500 };
const report: WorkerReport = {
  seq: 0,
  started: 2,
  failed: 0,
  allStarted: true,
  bootstraps: 2,
  runs: 2,
  leaseSamples: [1.5, 3],
  leaseSeen: 2,
  newLeaseFailures: 0,
  newRequests: 9,
  leaseRequests: [['agent-a1', 2]],
  openWatches: 6,
  loopDelayMaxMs: 12.5,
  rssBytes: 1,
  cpuMicros: 2,
};

test('should accept every message either side sends', () => {
  const cases = [
    { name: 'start', msg: { type: 'start', config } },
    { name: 'start at a rate with logs', msg: { type: 'start', config: { ...config, joinRatePerSecond: 2.5, logLevel: 'warn' } } },
    { name: 'report request', msg: { type: 'report', seq: 3 } },
    { name: 'stop', msg: { type: 'stop' } },
  ];
  for (const c of cases) assert.deepEqual(parseToWorker(JSON.parse(JSON.stringify(c.msg))), c.msg, c.name);
  for (const msg of [{ type: 'ready', rssBytes: 5 }, { type: 'report', report }, { type: 'stopped' }]) assert.deepEqual(parseFromWorker(JSON.parse(JSON.stringify(msg))), msg);
});

test('should refuse malformed messages by name', () => {
  const cases = [
    { name: 'not an object', parse: () => parseToWorker('stop'), error: /message is not an object/ },
    { name: 'unknown type', parse: () => parseToWorker({ type: 'pause' }), error: /unknown message type "pause"/ },
    { name: 'names not strings', parse: () => parseToWorker({ type: 'start', config: { ...config, names: [1] } }), error: /names is not a list of strings/ },
    { name: 'bad log level', parse: () => parseToWorker({ type: 'start', config: { ...config, logLevel: 'loud' } }), error: /logLevel is not a log level/ },
    { name: 'missing field', parse: () => parseFromWorker({ type: 'report', report: { ...report, runs: undefined } }), error: /runs is not a number/ },
    { name: 'bad pairs', parse: () => parseFromWorker({ type: 'report', report: { ...report, leaseRequests: [['x']] } }), error: /leaseRequests is not a list/ },
    { name: 'bad samples', parse: () => parseFromWorker({ type: 'report', report: { ...report, leaseSamples: ['1'] } }), error: /leaseSamples is not a list of numbers/ },
  ];
  for (const c of cases) assert.throws(c.parse, c.error, c.name);
});
