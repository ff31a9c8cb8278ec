import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildHubCommand, type HubCommandOptions } from './hub-command.js';
import { CliUsageError } from './usage-error.js';
import { parseCommand } from '../../test/helpers/parse-command.js';

const dir = mkdtempSync(join(tmpdir(), 'ocm-ts-hub-dashboard-flags-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const parse = (args: string[]): Promise<HubCommandOptions> => parseCommand<HubCommandOptions>(buildHubCommand, args);

test('should serve no dashboard unless asked, and bind it to loopback by default', async () => {
  assert.equal((await parse(['--data-dir', dir])).dashboard, undefined);
  assert.deepEqual((await parse(['--data-dir', dir, '--dashboard'])).dashboard, { host: '127.0.0.1', port: 8088 });
  assert.deepEqual((await parse(['--data-dir', dir, '--dashboard', '--dashboard-listen', '0.0.0.0:0'])).dashboard, { host: '0.0.0.0', port: 0 });
});

test('should refuse a dashboard address without --dashboard, or one that is not HOST:PORT', async () => {
  await assert.rejects(parse(['--data-dir', dir, '--dashboard-listen', '127.0.0.1:1']), (e: unknown) => e instanceof CliUsageError && /needs --dashboard/.test(e.message));
  await assert.rejects(parse(['--data-dir', dir, '--dashboard', '--dashboard-listen', 'nope']), (e: unknown) => e instanceof CliUsageError && /--dashboard-listen must be HOST:PORT/.test(e.message));
});
