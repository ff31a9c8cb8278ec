import type { Command } from 'commander';
import { resolve } from 'node:path';
import { realClock } from '../util/clock.js';
import { parseListen } from './apiserver-command.js';
import { parseDurationFlag } from './duration-flag.js';
import { CliUsageError } from './usage-error.js';

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('run a hub and N embedded spoke clusters with registration agents; show the fleet until Ctrl-C')
    .option('--clusters <n>', 'number of spoke clusters', '3')
    .option('--data-dir <dir>', 'where the hub and spokes keep their state', '.ocm-ts-demo')
    .option('--refresh <duration>', 'redraw period of the fleet table', '2s')
    .option('--dashboard-listen <host:port>', 'address of the web dashboard (port 0 = a free port)', '127.0.0.1:0')
    .option('--no-dashboard', 'do not serve the web dashboard')
    .action(async (flags: { clusters: string; dataDir: string; refresh: string; dashboard: boolean; dashboardListen: string }) => {
      const n = Number(flags.clusters);
      if (!Number.isInteger(n) || n < 1 || n > 50) throw new CliUsageError(`--clusters must be a whole number from 1 to 50, got "${flags.clusters}"`);
      const refreshMs = parseDurationFlag('--refresh', flags.refresh);
      let dashboard: { host: string; port: number } | undefined;
      try {
        dashboard = flags.dashboard ? parseListen(flags.dashboardListen) : undefined;
      } catch {
        throw new CliUsageError(`--dashboard-listen must be HOST:PORT, got "${flags.dashboardListen}"`);
      }
      const ac = new AbortController();
      const stop = (): void => ac.abort(new Error('interrupted'));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      try {
        const { runDemo } = await import('./demo.js');
        await runDemo({ dataDir: resolve(flags.dataDir), clusters: n, refreshMs: Math.max(200, refreshMs), clock: realClock, signal: ac.signal, out: process.stdout, ...(dashboard ? { dashboard } : {}) });
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}
