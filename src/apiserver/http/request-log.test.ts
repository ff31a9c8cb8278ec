import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createLogger } from '../../util/logger.js';
import { logRequest } from './request-log.js';

describe('request log', () => {
  const cases: { code: number; level: string | undefined }[] = [
    { code: 200, level: undefined },
    { code: 404, level: 'info' },
    { code: 409, level: 'info' },
    { code: 500, level: 'error' },
    { code: 504, level: 'error' },
  ];
  for (const c of cases) {
    it(`should log ${c.code} at ${c.level ?? 'debug (hidden at info)'}`, () => {
      const lines: string[] = [];
      const log = createLogger({ level: 'info', write: (l) => lines.push(l) });
      logRequest(log, { requestId: 'r1', method: 'GET', path: '/x', code: c.code, durationMs: 1.234 });
      if (!c.level) return assert.equal(lines.length, 0);
      const rec = JSON.parse(lines[0] as string) as Record<string, unknown>;
      assert.equal(rec.level, c.level);
      assert.equal(rec.requestId, 'r1');
      assert.equal(rec.code, c.code);
    });
  }
});
