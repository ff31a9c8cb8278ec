// Deterministic kubeconfig rendering: the agent's hub kubeconfig is compared
// byte for byte, so the same input must always give the same bytes. Keys are sorted alphabetically,
// sequences are not indented (the layout Go's clientcmd writes), empty fields are omitted.

import { toYaml } from '../util/yaml.js';

type KubeconfigUser =
  | { clientCertificate: string; clientKey: string }
  | { tokenFile: string }
  | { exec: { apiVersion: string; command: string; args?: string[] } };

export interface RenderKubeconfigInput {
  /** Name of the single cluster entry. */
  clusterName: string;
  server: string;
  /** CA file path, as written in the source kubeconfig. */
  certificateAuthority?: string;
  /** Base64 CA data (normalised to standard base64 without line breaks). */
  certificateAuthorityData?: string;
  proxyUrl?: string;
  user: KubeconfigUser;
  /** Defaults: `default-context`, `default-auth`, `configuration` (the names OCM's agent writes). */
  contextName?: string;
  userName?: string;
  namespace?: string;
}

export function renderKubeconfig(input: RenderKubeconfigInput): string {
  const contextName = input.contextName ?? 'default-context';
  const userName = input.userName ?? 'default-auth';
  const namespace = input.namespace ?? 'configuration';
  const cluster: Record<string, unknown> = { server: input.server };
  if (input.certificateAuthority) cluster['certificate-authority'] = input.certificateAuthority;
  if (input.certificateAuthorityData) cluster['certificate-authority-data'] = Buffer.from(input.certificateAuthorityData, 'base64').toString('base64');
  if (input.proxyUrl) cluster['proxy-url'] = input.proxyUrl;
  let user: Record<string, unknown>;
  if ('clientCertificate' in input.user) user = { 'client-certificate': input.user.clientCertificate, 'client-key': input.user.clientKey };
  else if ('tokenFile' in input.user) user = { tokenFile: input.user.tokenFile };
  else {
    const e = input.user.exec;
    user = { exec: { apiVersion: e.apiVersion, command: e.command, ...(e.args && e.args.length > 0 ? { args: [...e.args] } : {}) } };
  }
  const doc = {
    apiVersion: 'v1',
    clusters: [{ cluster, name: input.clusterName }],
    contexts: [{ context: { cluster: input.clusterName, ...(namespace ? { namespace } : {}), user: userName }, name: contextName }],
    'current-context': contextName,
    kind: 'Config',
    users: [{ name: userName, user }],
  };
  return toYaml(doc, { sortKeys: true, indentSequences: false });
}
