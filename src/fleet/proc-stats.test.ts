import { test } from 'node:test';
import assert from 'node:assert/strict';
import { coresBetween, countEstablished, parseStatCpuSeconds, parseStatusRssBytes } from './proc-stats.js';

test('should read utime + stime from a stat line whose command name holds spaces and parentheses', () => {
  const stat = '4242 (node (hub) x) S 1 4242 4242 0 -1 4194304 100 0 0 0 250 50 0 0 20 0 11 0 100 1000 200';
  assert.equal(parseStatCpuSeconds(stat), 3);
});

test('should read VmRSS in bytes', () => {
  assert.equal(parseStatusRssBytes('Name:\tnode\nVmRSS:\t  2048 kB\nThreads:\t11\n'), 2048 * 1024);
  assert.throws(() => parseStatusRssBytes('Name:\tnode\n'));
});

test('should turn two CPU samples into cores', () => {
  assert.equal(coresBetween({ cpuSeconds: 1, rssBytes: 0 }, { cpuSeconds: 1.5, rssBytes: 0 }, 2000), 0.25);
  assert.equal(coresBetween({ cpuSeconds: 1, rssBytes: 0 }, { cpuSeconds: 2, rssBytes: 0 }, 0), 0);
});

test('should count only established connections on the local port', () => {
  const header = '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode';
  const tcp = [
    header,
    '   0: 0100007F:1A0B 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1', // listening on 6667
    '   1: 0100007F:1A0B 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 2 1', // server side
    '   2: 0100007F:C350 0100007F:1A0B 01 00000000:00000000 00:00000000 00000000     0        0 3 1', // client side
    '   3: 0100007F:1A0B 0100007F:C351 06 00000000:00000000 00:00000000 00000000     0        0 4 1', // TIME_WAIT
  ].join('\n');
  assert.equal(countEstablished([tcp, header], 0x1a0b), 1);
});
