// The importer's renderers, applied in `--import-renderers` order to an AgentImportConfig:
//   render-auto: a bootstrap kubeconfig holding a 24-hour token of the bootstrap service account
//     (TokenRequest), the hub URL (`--hub-apiserver-url`, else kube-public/cluster-info) and CA
//     (cluster-info, else kube-public/kube-root-ca.crt); `--agent-image`; the pull credentials of
//     the hub's `--image-pull-secret-name` Secret when it exists.
//   render-from-config-secret: the chart values of the Secret `cluster-import-config` (key
//     `values.yaml`) in the cluster's namespace.

import type { Secret } from '../../api/core.js';
import type { KubeObject } from '../../api/meta.js';
import { isNotFound } from '../../client/errors.js';
import { resourceTypes } from '../../client/resource-types.js';
import type { KubeClient } from '../../client/types.js';
import { isPlainObject } from '../../util/merge-patch.js';
import { errorMessage } from '../../util/errors.js';
import { parseYaml, toYaml } from '../../util/yaml.js';
import { applyChartValues, type AgentImportConfig } from './import-config.js';
import { RENDER_AUTO, type ImporterOptions, type ImportRenderer } from './importer-options.js';

const IMPORT_CONFIG_SECRET = 'cluster-import-config';
const VALUES_KEY = 'values.yaml';
const BOOTSTRAP_TOKEN_SECONDS = 24 * 3600;

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

export interface RenderContext {
  hub: KubeClient;
  /** The ManagedCluster's name: its namespace holds the import config Secret. */
  clusterName: string;
  options: Readonly<ImporterOptions>;
  signal: AbortSignal;
}

async function getIfExists<T extends Secret | ConfigMap>(hub: KubeClient, kind: 'secrets' | 'configMaps', namespace: string, name: string, signal: AbortSignal): Promise<T | undefined> {
  try {
    return await hub.resource<T>(resourceTypes[kind], namespace).get(name, { signal });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** The single cluster entry of kube-public/cluster-info's kubeconfig, when there is one. */
async function clusterInfo(hub: KubeClient, signal: AbortSignal): Promise<{ server?: string; caData?: string } | undefined> {
  const cm = await getIfExists<ConfigMap>(hub, 'configMaps', 'kube-public', 'cluster-info', signal);
  if (!cm) return undefined;
  const doc: unknown = parseYaml(cm.data?.['kubeconfig'] ?? '');
  const clusters = isPlainObject(doc) && Array.isArray(doc['clusters']) ? doc['clusters'] : [];
  if (clusters.length !== 1) throw new Error('can not find the cluster in the cluster-info');
  const c: unknown = isPlainObject(clusters[0]) ? clusters[0]['cluster'] : undefined;
  if (!isPlainObject(c)) throw new Error('can not find the cluster in the cluster-info');
  return {
    ...(typeof c['server'] === 'string' ? { server: c['server'] } : {}),
    ...(typeof c['certificate-authority-data'] === 'string' ? { caData: c['certificate-authority-data'] } : {}),
  };
}

/** The bootstrap kubeconfig, laid out as OCM's importer writes it (cluster `hub`, user and context `bootstrap`). */
function bootstrapKubeconfig(server: string, caData: string | undefined, token: string): string {
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'hub', cluster: { server, ...(caData ? { 'certificate-authority-data': caData } : {}) } }],
    users: [{ name: 'bootstrap', user: { token } }],
    contexts: [{ name: 'bootstrap', context: { cluster: 'hub', user: 'bootstrap', namespace: 'default' } }],
    'current-context': 'bootstrap',
  });
}

async function renderAuto(config: AgentImportConfig, r: RenderContext): Promise<AgentImportConfig> {
  const { hub, options, signal } = r;
  const sa = options.bootstrapServiceAccount;
  let token: unknown;
  try {
    const res = await hub.request<{ status?: { token?: unknown } }>('POST', `/api/v1/namespaces/${sa.namespace}/serviceaccounts/${sa.name}/token`, {
      apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: BOOTSTRAP_TOKEN_SECONDS },
    }, { signal });
    token = res.status?.token;
  } catch (err) {
    throw new Error(`failed to get token from sa ${sa.namespace}/${sa.name}: ${errorMessage(err)}`, { cause: err });
  }
  if (typeof token !== 'string' || token === '') throw new Error(`failed to get token from sa ${sa.namespace}/${sa.name}: the TokenRequest carries no token`);
  const info = await clusterInfo(hub, signal);
  const server = options.hubApiServerUrl !== '' ? options.hubApiServerUrl : info?.server;
  if (!server) throw new Error('no hub API server URL: set --hub-apiserver-url or publish kube-public/cluster-info');
  let caData = info?.caData;
  if (caData === undefined) {
    const rootCa = await getIfExists<ConfigMap>(hub, 'configMaps', 'kube-public', 'kube-root-ca.crt', signal);
    const pem = rootCa?.data?.['ca.crt'];
    if (pem) caData = Buffer.from(pem).toString('base64');
  }
  const out: AgentImportConfig = { ...config, bootstrapHubKubeconfig: bootstrapKubeconfig(server, caData, token) };
  if (options.agentImage !== '') out.image = options.agentImage;
  const pull = await getIfExists<Secret>(hub, 'secrets', options.operatorNamespace, options.imagePullSecretName, signal);
  const docker = pull?.data?.['.dockerconfigjson'];
  if (docker) out.dockerConfigJson = Buffer.from(docker, 'base64').toString('utf8');
  return out;
}

async function renderFromConfigSecret(config: AgentImportConfig, r: RenderContext): Promise<AgentImportConfig> {
  const ns = r.clusterName;
  const secret = await r.hub.resource<Secret>(resourceTypes.secrets, ns).get(IMPORT_CONFIG_SECRET, { signal: r.signal });
  const raw = secret.data?.[VALUES_KEY];
  if (!raw) throw new Error(`no values found in secret ${ns}/${IMPORT_CONFIG_SECRET} key ${VALUES_KEY}`);
  return applyChartValues(config, Buffer.from(raw, 'base64').toString('utf8'));
}

/** Runs the renderers in order; later ones override what earlier ones set. */
export async function renderImportConfig(initial: AgentImportConfig, renderers: readonly ImportRenderer[], r: RenderContext): Promise<AgentImportConfig> {
  let config = initial;
  for (const name of renderers) config = name === RENDER_AUTO ? await renderAuto(config, r) : await renderFromConfigSecret(config, r);
  return config;
}
