// What the importer installs on a cluster, as one plain object that the renderers fill in turn, and
// the subset of OCM's klusterlet chart values (the `values.yaml` of the `cluster-import-config`
// Secret) that maps onto our agent. Pure.

import { isPlainObject } from '../../util/merge-patch.js';
import { errorMessage } from '../../util/errors.js';
import { parseYaml } from '../../util/yaml.js';

/** The agent's namespace on the imported cluster, fixed as in OCM. */
export const AGENT_NAMESPACE = 'open-cluster-management-agent';

export interface AgentImportConfig {
  clusterName: string;
  replicas: number;
  /** '' = the default image. */
  image: string;
  imagePullPolicy?: string;
  /** The bootstrap kubeconfig written to the agent's `bootstrap-hub-kubeconfig` Secret. */
  bootstrapHubKubeconfig?: string;
  /** `.dockerconfigjson` of the image pull secret created beside the agent. */
  dockerConfigJson?: string;
  /** Existing pull secrets the pod also names. */
  imagePullSecrets: readonly string[];
  nodeSelector?: Readonly<Record<string, string>>;
  tolerations?: readonly Readonly<Record<string, unknown>>[];
  priorityClassName?: string;
}

export function initialImportConfig(clusterName: string): AgentImportConfig {
  return { clusterName, replicas: 1, image: '', imagePullSecrets: [] };
}

class ValuesError extends Error {
  constructor(path: string, want: string) {
    super(`${path} must be ${want}`);
    this.name = 'ValuesError';
  }
}

type Values = Record<string, unknown>;

function section(v: Values, key: string, path: string): Values {
  const s = v[key];
  if (s === undefined || s === null) return {};
  if (!isPlainObject(s)) throw new ValuesError(`${path}${key}`, 'a mapping');
  return s;
}

function optString(v: Values, key: string, path: string): string | undefined {
  const s = v[key];
  if (s === undefined || s === null || s === '') return undefined;
  if (typeof s !== 'string') throw new ValuesError(`${path}${key}`, 'a string');
  return s;
}

function stringMap(v: Values, key: string): Record<string, string> | undefined {
  const s = v[key];
  if (s === undefined || s === null) return undefined;
  if (!isPlainObject(s) || Object.values(s).some((x) => typeof x !== 'string')) throw new ValuesError(key, 'a mapping of strings');
  return s as Record<string, string>;
}

/**
 * Overlays the chart values onto `config`, as OCM unmarshals them onto its chart config: fields the
 * values leave out keep their value. Understood: `bootstrapHubKubeConfig`, `replicaCount`,
 * `images.{overrides.registrationImage, overrides.operatorImage, registry, tag, imagePullPolicy,
 * imagePullSecrets, imageCredentials.dockerConfigJson}`, `klusterlet.clusterName`, `nodeSelector`,
 * `tolerations`, `priorityClassName`; other keys describe OCM's operator and are not used.
 */
export function applyChartValues(config: AgentImportConfig, valuesYaml: string): AgentImportConfig {
  try {
    const doc: unknown = parseYaml(valuesYaml);
    if (!isPlainObject(doc)) throw new Error('not a YAML mapping');
    const out: AgentImportConfig = { ...config };
    const bootstrap = optString(doc, 'bootstrapHubKubeConfig', '');
    if (bootstrap !== undefined) out.bootstrapHubKubeconfig = bootstrap;
    const replicas = doc['replicaCount'];
    if (replicas !== undefined && replicas !== null) {
      if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) throw new ValuesError('replicaCount', 'a non-negative integer');
      // As OCM's chart: 0 means "unset" and keeps the default.
      if (replicas > 0) out.replicas = replicas;
    }
    const images = section(doc, 'images', '');
    const overrides = section(images, 'overrides', 'images.');
    const registry = optString(images, 'registry', 'images.');
    const tag = optString(images, 'tag', 'images.');
    const image = optString(overrides, 'registrationImage', 'images.overrides.') ?? optString(overrides, 'operatorImage', 'images.overrides.')
      ?? (registry !== undefined || tag !== undefined ? `${registry !== undefined ? `${registry.replace(/\/+$/, '')}/` : ''}ocm-ts:${tag ?? 'latest'}` : undefined);
    if (image !== undefined) out.image = image;
    const policy = optString(images, 'imagePullPolicy', 'images.');
    if (policy !== undefined) {
      if (!['Always', 'IfNotPresent', 'Never'].includes(policy)) throw new ValuesError('images.imagePullPolicy', 'Always, IfNotPresent or Never');
      out.imagePullPolicy = policy;
    }
    const pullSecrets = images['imagePullSecrets'];
    if (pullSecrets !== undefined && pullSecrets !== null) {
      if (!Array.isArray(pullSecrets) || pullSecrets.some((p) => !isPlainObject(p) || typeof p['name'] !== 'string' || p['name'] === '')) {
        throw new ValuesError('images.imagePullSecrets', 'a list of {name}');
      }
      out.imagePullSecrets = pullSecrets.map((p) => (p as { name: string }).name);
    }
    const creds = section(images, 'imageCredentials', 'images.');
    const dockerConfigJson = optString(creds, 'dockerConfigJson', 'images.imageCredentials.');
    if (creds['createImageCredentials'] === true && dockerConfigJson !== undefined) out.dockerConfigJson = dockerConfigJson;
    const clusterName = optString(section(doc, 'klusterlet', ''), 'clusterName', 'klusterlet.');
    if (clusterName !== undefined) out.clusterName = clusterName;
    const nodeSelector = stringMap(doc, 'nodeSelector');
    if (nodeSelector !== undefined) out.nodeSelector = nodeSelector;
    const tolerations = doc['tolerations'];
    if (tolerations !== undefined && tolerations !== null) {
      if (!Array.isArray(tolerations) || tolerations.some((t) => !isPlainObject(t))) throw new ValuesError('tolerations', 'a list of tolerations');
      out.tolerations = tolerations as Record<string, unknown>[];
    }
    const priority = optString(doc, 'priorityClassName', '');
    if (priority !== undefined) out.priorityClassName = priority;
    return out;
  } catch (err) {
    throw new Error(`the values in the cluster import config secret is invalid: ${errorMessage(err)}`, { cause: err });
  }
}
