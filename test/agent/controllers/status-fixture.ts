// Runs the agent's status controller for one cluster against test servers: its own hub and spoke
// informer factories, short resyncs, a captured log to count its runs.

import { setMaxListeners } from 'node:events';
import { createInformerFactory } from '../../../src/client/informer-factory.js';
import type { KubeClient } from '../../../src/client/types.js';
import { createStatusController, STATUS_CONTROLLER_NAME, type StatusController, type StatusControllerOptions } from '../../../src/agent/managedcluster/index.js';
import { captureLog, type CapturedLog } from '../../helpers/test-log.js';
import { waitFor } from '../../helpers/wait-for.js';

export interface RunningStatusController {
  controller: StatusController;
  logs: CapturedLog;
  /** Runs so far (resyncs included). */
  runCount(): number;
  /** Resolves once the controller has run `n` more times than now. */
  runs(n: number): Promise<void>;
  stop(): Promise<void>;
}

export type StatusControllerOverrides = Partial<Omit<StatusControllerOptions, 'hubInformers' | 'spokeInformers' | 'log'>>;

/** Hub and spoke clients as given (the spoke's informers follow `over.spokeClient` when set). */
export function startStatusController(clients: { hubAdmin: KubeClient; spokeAdmin: KubeClient }, name: string, over: StatusControllerOverrides = {}): RunningStatusController {
  const ac = new AbortController();
  setMaxListeners(50, ac.signal);
  const logs = captureLog();
  const hubClient = over.hubClient ?? clients.hubAdmin;
  const spokeClient = over.spokeClient ?? clients.spokeAdmin;
  const hubInformers = createInformerFactory(hubClient);
  const spokeInformers = createInformerFactory(spokeClient);
  const controller = createStatusController({
    clusterName: name,
    bootstrapServerUrl: 'https://hub.example.com:6443',
    features: { ClusterClaim: true, ClusterProperty: true },
    resyncMs: 200,
    hostname: 'testhost',
    ...over,
    hubClient,
    spokeClient,
    hubInformers,
    spokeInformers,
    log: logs.log,
  });
  hubInformers.start(ac.signal);
  spokeInformers.start(ac.signal);
  const running = controller.run(ac.signal);
  const runCount = (): number => logs.reconciles(STATUS_CONTROLLER_NAME);
  return {
    controller,
    logs,
    runCount,
    async runs(n) {
      const target = runCount() + n;
      await waitFor(() => runCount() >= target, 10_000, { message: `${n} more status controller runs` });
    },
    async stop() {
      ac.abort();
      await running;
    },
  };
}
