// The importer's settings as OCM's hub takes them (`--hub-apiserver-url`, `--agent-image`,
// `--bootstrap-serviceaccount`, `--import-renderers`, `--image-pull-secret-name`), validated once.
// Pure.

/** Builds the agent's bootstrap kubeconfig, image and pull credentials from the hub itself. */
export const RENDER_AUTO = 'render-auto';
/** Reads chart values from the Secret `cluster-import-config` (key `values.yaml`) in the cluster's namespace. */
const RENDER_FROM_CONFIG_SECRET = 'render-from-config-secret';
export type ImportRenderer = typeof RENDER_AUTO | typeof RENDER_FROM_CONFIG_SECRET;

const DEFAULT_BOOTSTRAP_SERVICE_ACCOUNT = 'open-cluster-management/agent-registration-bootstrap';
export const DEFAULT_IMAGE_PULL_SECRET = 'open-cluster-management-image-pull-credentials';
/** The image of the agent when neither `--agent-image` nor the chart values name one. */
export const DEFAULT_AGENT_IMAGE = 'ocm-ts:latest';
const DEFAULT_HUB_NAMESPACE = 'open-cluster-management-hub';

export interface ImporterOptions {
  /** `--hub-apiserver-url`; '' = the server of kube-public/cluster-info. */
  hubApiServerUrl: string;
  /** `--agent-image`; '' = the chart values' image, else DEFAULT_AGENT_IMAGE. */
  agentImage: string;
  bootstrapServiceAccount: { namespace: string; name: string };
  renderers: readonly ImportRenderer[];
  imagePullSecretName: string;
  /** Where the image pull secret is looked up: the hub's own namespace. */
  operatorNamespace: string;
  /** Wait before looking again for a missing kubeconfig secret (not watched; OCM's 1 minute). */
  kubeconfigRetryMs: number;
}

export interface ImporterOptionsInput {
  hubApiServerUrl?: string;
  agentImage?: string;
  bootstrapServiceAccount?: string;
  /** undefined = OCM's default (render-from-config-secret); an empty list = render-auto. */
  renderers?: readonly string[];
  imagePullSecretName?: string;
  operatorNamespace?: string;
  kubeconfigRetryMs?: number;
}

class ImporterOptionsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImporterOptionsError';
  }
}

/** Which input fields were given: with the gate off they do nothing, and a warning says so. */
const FLAG_NAMES: readonly [keyof ImporterOptionsInput, string][] = [
  ['hubApiServerUrl', '--hub-apiserver-url'],
  ['agentImage', '--agent-image'],
  ['bootstrapServiceAccount', '--bootstrap-serviceaccount'],
  ['renderers', '--import-renderers'],
  ['imagePullSecretName', '--image-pull-secret-name'],
];

/** Validates the importer settings; throws ImporterOptionsError naming the flag. */
export function resolveImporterOptions(input: ImporterOptionsInput, enabled: boolean): { options: Readonly<ImporterOptions>; warnings: string[] } {
  const warnings: string[] = [];
  if (!enabled) {
    for (const [key, flag] of FLAG_NAMES) {
      if (input[key] !== undefined) warnings.push(`${flag} ignored: the ClusterImporter feature gate is off`);
    }
  }
  const renderers: ImportRenderer[] = [];
  // As OCM: an empty list means the automatic renderer.
  for (const r of input.renderers === undefined ? [RENDER_FROM_CONFIG_SECRET] : input.renderers.length === 0 ? [RENDER_AUTO] : input.renderers) {
    if (r !== RENDER_AUTO && r !== RENDER_FROM_CONFIG_SECRET) throw new ImporterOptionsError(`--import-renderers: unknown importer renderer ${r} (allowed: ${RENDER_AUTO}, ${RENDER_FROM_CONFIG_SECRET})`);
    renderers.push(r);
  }
  const sa = (input.bootstrapServiceAccount ?? DEFAULT_BOOTSTRAP_SERVICE_ACCOUNT).trim();
  const parts = sa.split('/');
  if (parts.length !== 2 || parts.some((p) => !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(p))) {
    throw new ImporterOptionsError(`--bootstrap-serviceaccount must be NAMESPACE/NAME, got ${JSON.stringify(sa)}`);
  }
  const url = (input.hubApiServerUrl ?? '').trim();
  if (url !== '') {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || parsed.protocol !== 'https:') throw new ImporterOptionsError(`--hub-apiserver-url must be an https:// URL, got ${JSON.stringify(url)}`);
  }
  const retry = input.kubeconfigRetryMs ?? 60_000;
  if (!Number.isFinite(retry) || retry <= 0) throw new ImporterOptionsError('importer kubeconfigRetryMs must be a positive number of milliseconds');
  // As OCM: a blank name falls back to the default one.
  const pull = (input.imagePullSecretName ?? '').trim();
  const options: ImporterOptions = {
    hubApiServerUrl: url.replace(/\/+$/, ''),
    agentImage: (input.agentImage ?? '').trim(),
    bootstrapServiceAccount: Object.freeze({ namespace: parts[0]!, name: parts[1]! }),
    renderers: Object.freeze(renderers),
    imagePullSecretName: pull === '' ? DEFAULT_IMAGE_PULL_SECRET : pull,
    operatorNamespace: input.operatorNamespace ?? DEFAULT_HUB_NAMESPACE,
    kubeconfigRetryMs: retry,
  };
  return { options: Object.freeze(options), warnings };
}
