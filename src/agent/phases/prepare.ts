// The first phase of a run: clients of the management and spoke clusters, the agent's namespace,
// and the hub kubeconfig secret copied to files, so that the names and credentials of an earlier
// join are found. Then the options are checked and completed: from here on the cluster name and
// the agent ID are final.

import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { hubSecretKeys } from '../../api/constants.js';
import type { Namespace, Secret } from '../../api/core.js';
import { isAlreadyExists, isNotFound } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient, ResourceClient } from '../../client/types.js';
import type { Logger } from '../../util/logger.js';
import { buildAgentClients, spokeClusterCaBundle, type AgentClients } from '../agent-clients.js';
import type { SpokeAgentOptions } from '../options/agent-options.js';
import { AGENT_ID_ALPHABET, completeOptions, validateClusterName, validateRegistrationOptions } from '../options/validate-options.js';
import { dumpSecret } from '../secret-dump/dump-secret.js';
import { AgentConfigError } from './config-error.js';
import type { RunScope } from './run-scope.js';

export interface PrepareInput {
  /** All of them: this is where they are validated. */
  options: Readonly<SpokeAgentOptions>;
  log: Logger;
  userAgent: string;
  random: () => number;
}

/** Who the agent is on the hub, and where its hub credentials are read from. */
export interface AgentNames {
  clusterName: string;
  agentId: string;
  /** Path of the hub kubeconfig (in the hub kubeconfig dir unless given). */
  hubKubeconfigFile: string;
}

export interface Prepared {
  clients: AgentClients;
  /** Secrets of the agent's namespace on the management cluster. */
  secrets: ResourceClient<Secret>;
  names: AgentNames;
  /** The spoke's CA for the ManagedCluster's client configs (only with external server URLs). */
  spokeCaBundle: Buffer | undefined;
}

/** The clients are closed when the scope ends. Throws AgentConfigError for options no rerun can fix. */
export async function prepare(i: PrepareInput, scope: RunScope, signal: AbortSignal): Promise<Prepared> {
  const opts = i.options;
  const clients = buildAgentClients({
    kubeconfig: opts.kubeconfig,
    spokeKubeconfig: opts.spokeKubeconfig,
    log: i.log,
    userAgent: i.userAgent,
    rateLimit: { qps: opts.kubeApiQps, burst: opts.kubeApiBurst },
  });
  scope.onEnd(() => clients.management.close());
  if (clients.spoke !== clients.management) scope.onEnd(() => clients.spoke.close());
  const secrets = clients.management.resource<Secret>(resourceTypes.secrets, opts.namespace);
  await ensureComponentNamespace(clients.management, opts.namespace, i.log, signal);
  await dumpSecret({ secrets, namespace: opts.namespace, name: opts.hubKubeconfigSecret, dir: opts.hubKubeconfigDir, signal });
  const names = completeNames(opts, i.random);
  return { clients, secrets, names, spokeCaBundle: spokeClusterCaBundle(opts.spokeExternalServerUrls, clients.spokeCaPem) };
}

/**
 * Validate, complete, validate, like OCM's agent: names not given as flags come from the files just
 * dumped (an earlier join), else are new.
 */
function completeNames(opts: Readonly<SpokeAgentOptions>, random: () => number): AgentNames {
  const regErr = validateRegistrationOptions(opts);
  if (regErr !== undefined) throw new AgentConfigError(regErr);
  const completed = completeOptions(opts, {
    clusterNameFile: readOptional(join(opts.hubKubeconfigDir, hubSecretKeys.clusterName)),
    agentNameFile: readOptional(join(opts.hubKubeconfigDir, hubSecretKeys.agentName)),
    newUuid: randomUUID,
    newAgentId: () => randomAgentId(random),
  });
  const nameErr = validateClusterName(completed.clusterName);
  if (nameErr !== undefined) throw new AgentConfigError(nameErr);
  return { clusterName: completed.clusterName, agentId: completed.agentId, hubKubeconfigFile: completed.hubKubeconfig };
}

function readOptional(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

function randomAgentId(random: () => number): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += AGENT_ID_ALPHABET[Math.floor(random() * AGENT_ID_ALPHABET.length)]!;
  return s;
}

/**
 * The klusterlet operator creates the agent namespace before the agent runs; without an operator
 * (a cluster joined by hand) the agent creates it, so the hub kubeconfig secret has a home.
 * Lacking permission to do so is not fatal: saving the secret then reports the real problem.
 */
export async function ensureComponentNamespace(client: KubeClient, namespace: string, log: Logger, signal: AbortSignal): Promise<void> {
  const namespaces = client.resource<Namespace>(resourceTypes.namespaces);
  try {
    await namespaces.get(namespace, { signal });
    return;
  } catch (err) {
    if (!isNotFound(err)) {
      log.warn('unable to check the agent namespace', { namespace, err });
      return;
    }
  }
  try {
    await namespaces.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } }, { signal });
    log.info('created the agent namespace', { namespace });
  } catch (err) {
    if (!isAlreadyExists(err)) log.warn('unable to create the agent namespace', { namespace, err });
  }
}
