// A group of the fleet's agents in one process: started at a pace, each with the options an operator
// would give it on its own cluster (the shared spoke, its own namespace and hub kubeconfig directory),
// and tallied. The fleet runs one group in its own process, or one per worker process.

import { getMaxListeners, setMaxListeners } from 'node:events';
import { join } from 'node:path';
import { defaultAgentOptions } from '../agent/options/agent-options.js';
import { startSpokeAgent, type SpokeAgentHandle } from '../agent/spoke-agent.js';
import type { Clock } from '../util/clock.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { AgentSlice } from './worker-protocol.js';

/** Agent starts in flight at once: each start reads files and makes a key, so a storm of thousands is throttled. */
const AGENT_START_CONCURRENCY = 64;

interface AgentGroupOptions extends AgentSlice {
  log: Logger;
  clock: Clock;
  /** Stops starting agents (those started keep running until stop()). */
  signal: AbortSignal;
}

export interface AgentTotals {
  /** Bootstrap phases entered by all agents (one per agent for a first join). */
  bootstraps: number;
  /** Start sequence runs (one per agent unless an agent restarted). */
  runs: number;
}

export interface AgentGroup {
  /** Time the first agent was started (clock ms), once started. */
  firstStartMs(): number | undefined;
  /** Resolves when every agent was started (or stopping began). */
  readonly allStarted: Promise<void>;
  /** Agents started, including those that could not start. */
  started(): number;
  /** Agents that stopped with an error or could not start. */
  failed(): number;
  totals(): AgentTotals;
  /** Stops starting agents, then stops every started one. */
  stop(): Promise<void>;
}

export function agentNamespace(cluster: string): string {
  return `agent-${cluster}`;
}

/** Starts `count` tasks with at most `rate` starts per second (unlimited when undefined), `concurrency` at a time. */
export async function paced(count: number, rate: number | undefined, concurrency: number, clock: Clock, signal: AbortSignal, task: (i: number) => Promise<void>): Promise<void> {
  // Each of the concurrent starters waits on the signal while it is paced: one listener each, by
  // design, which would otherwise trip Node's possible-leak warning past ten.
  setMaxListeners(Math.max(getMaxListeners(signal), concurrency + 1), signal);
  const t0 = clock.now();
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count && !signal.aborted) {
      const i = next++;
      if (rate !== undefined) {
        const due = t0 + (i * 1000) / rate;
        const wait = due - clock.now();
        if (wait > 0) {
          try {
            await clock.sleep(wait, signal);
          } catch {
            return;
          }
        }
      }
      await task(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

export function startAgentGroup(o: AgentGroupOptions): AgentGroup {
  const agents: SpokeAgentHandle[] = [];
  let failedToStart = 0;
  let firstStart: number | undefined;
  const startCtl = new AbortController();
  const onAbort = (): void => startCtl.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  const allStarted = paced(o.names.length, o.joinRatePerSecond, AGENT_START_CONCURRENCY, o.clock, startCtl.signal, async (i) => {
    const name = o.names[i]!;
    firstStart ??= o.clock.now();
    try {
      const agent = await startSpokeAgent({
        options: {
          ...defaultAgentOptions(),
          kubeconfig: o.spokeAdminKubeconfig,
          clusterName: name,
          namespace: agentNamespace(name),
          bootstrapKubeconfig: o.bootstrapKubeconfig,
          hubKubeconfigDir: join(o.workDir, 'agents', name),
          spokeExternalServerUrls: [o.spokeUrl],
        },
        log: o.log.child({ cluster: name }),
        clock: o.clock,
        defaultMetrics: false,
      });
      agents.push(agent);
    } catch (err) {
      failedToStart++;
      o.log.error('fleet: agent did not start', { cluster: name, err: errorMessage(err) });
    }
  }).finally(() => o.signal.removeEventListener('abort', onAbort));
  return {
    firstStartMs: () => firstStart,
    allStarted,
    started: () => agents.length + failedToStart,
    failed() {
      let failed = failedToStart;
      for (const a of agents) {
        const st = a.status();
        if (st.phase === 'stopped' && st.exitCode !== 0) failed++;
      }
      return failed;
    },
    totals: () =>
      agents.reduce(
        (t, a) => {
          const st = a.status();
          return { bootstraps: t.bootstraps + st.bootstraps, runs: t.runs + st.runs };
        },
        { bootstraps: 0, runs: 0 },
      ),
    async stop() {
      startCtl.abort();
      // Starts in flight finish (at most the concurrency limit), so no agent is left running.
      await allStarted;
      await Promise.all(agents.map((a) => a.stop()));
    },
  };
}
