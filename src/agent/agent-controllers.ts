// The contract between the start sequence (./spoke-agent-run.ts) and the hub-facing controllers:
// which controllers run in the bootstrap phase (C) and in the main phase (F, G, H, I, K, L), built
// from what the start sequence prepared. The default set lives in ./default-controllers.ts; tests
// may pass their own.

import type { FeatureGates } from '../api/feature-gates.js';
import type { InformerFactory } from '../client/informer-factory.js';
import type { KubeClient } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import type { SpokeAgentOptions } from './options/agent-options.js';

export interface Runnable {
  readonly name: string;
  /** Runs until the signal aborts (controllers wait for their own informers' caches). */
  run(signal: AbortSignal): Promise<void>;
}

interface CommonInput {
  clusterName: string;
  agentId: string;
  options: Readonly<SpokeAgentOptions>;
  features: FeatureGates;
  log: Logger;
  clock: Clock;
  random: () => number;
}

export interface BootstrapControllersInput extends CommonInput {
  /** Hub client with the bootstrap credentials. */
  bootstrapClient: KubeClient;
  /** Hub informers on the bootstrap client (started by the start sequence). */
  bootstrapInformers: InformerFactory;
  /** Spoke CA bundle for `spec.managedClusterClientConfigs` (only with external server URLs). */
  spokeCaBundle: Buffer | undefined;
}

export interface MainControllersInput extends CommonInput {
  /** Hub client built from the hub kubeconfig path (re-reads rotated certificate files). */
  hubClient: KubeClient;
  hubInformers: InformerFactory;
  spokeClient: KubeClient;
  spokeInformers: InformerFactory;
  managementClient: KubeClient;
  managementInformers: InformerFactory;
  /** Path of the current bootstrap kubeconfig and its server URL (hub hash). */
  bootstrapKubeconfigFile: string;
  bootstrapServerUrl: string;
  /** Cancels the agent: the start sequence re-runs (or the process exits with --exit-on-restart). */
  cancel(reason: string): void;
}

export interface BootstrapSelectionInput {
  clusterName: string;
  hubKubeconfigFile: string;
  candidates: readonly string[];
  log: Logger;
  signal: AbortSignal;
}

export interface AgentControllerSet {
  /** Bootstrap phase: C (ManagedClusterCreatingController). */
  bootstrap(input: BootstrapControllersInput): Runnable[];
  /** Main phase, in start order: F, G, then H, I (AddonManagement), then K, L (MultipleHubs). */
  main(input: MainControllersInput): Runnable[];
  /** MultipleHubs: picks the bootstrap kubeconfig (spoke-agent.md §16.1); returns its index. */
  selectBootstrapKubeconfig?(input: BootstrapSelectionInput): Promise<number>;
}
