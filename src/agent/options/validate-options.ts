// Option validation and completion, in OCM's order and with OCM's messages, as pure functions:
// inputs in, result out.
// The caller reads the dumped `cluster-name` / `agent-name` files and supplies the randomness.

import type { SpokeAgentOptions } from './agent-options.js';
import { gateEnabled } from './agent-options.js';

/** First, the registration options as given. Returns OCM's message, or undefined when valid. */
export function validateRegistrationOptions(opts: Readonly<SpokeAgentOptions>): string | undefined {
  if (gateEnabled(opts, 'MultipleHubs') && opts.bootstrapKubeconfigs.length < 2) {
    return 'expect at least 2 bootstrap kubeconfigs';
  }
  for (const url of opts.spokeExternalServerUrls) {
    if (!isValidHttpsUrl(url)) return `${goQuote(url)} is invalid`;
  }
  if (opts.clusterHealthcheckPeriodMs <= 0) return 'cluster healthcheck period must greater than zero';
  return validateDriverOptions(opts);
}

/** Registration driver options (`register/factory` Validate). */
function validateDriverOptions(opts: Readonly<SpokeAgentOptions>): string | undefined {
  const addonAuth = opts.addonKubeclientRegistrationAuth;
  if (addonAuth !== '' && addonAuth !== 'csr' && addonAuth !== 'token') {
    return `unsupported addon-kubeclient-registration-auth: ${addonAuth}`;
  }
  switch (opts.registrationAuth) {
    case 'awsirsa':
      return opts.hubClusterArn === '' ? 'EksHubClusterArn cannot be empty if RegistrationAuth is awsirsa' : undefined;
    case 'grpc':
      return opts.grpcConfig === '' && opts.grpcBootstrapConfig === '' ? 'config file should be set' : undefined;
    default:
      if (opts.clientCertExpirationSeconds !== 0 && opts.clientCertExpirationSeconds < 3600) {
        return 'client certificate expiration seconds must greater or qual to 3600';
      }
      return undefined;
  }
}

/** Empty, unparseable or non-https URLs are invalid. */
export function isValidHttpsUrl(url: string): boolean {
  if (url === '') return false;
  try {
    return new URL(url).protocol === 'https:';
  } catch {
    return false;
  }
}

/** Go's %q for the plain strings flags carry. */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

export interface NameSources {
  /** Content of `<hub-kubeconfig-dir>/cluster-name`, undefined when unreadable. */
  clusterNameFile: string | undefined;
  /** Content of `<hub-kubeconfig-dir>/agent-name`, undefined when unreadable. */
  agentNameFile: string | undefined;
  /** Random UUID v4 (lowercase). */
  newUuid(): string;
  /** 5 random characters from AGENT_ID_ALPHABET. */
  newAgentId(): string;
}

export const AGENT_ID_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

export interface CompletedNames {
  hubKubeconfig: string;
  clusterName: string;
  agentId: string;
}

/** Then completion of the names (never fails). */
export function completeOptions(
  opts: Pick<SpokeAgentOptions, 'hubKubeconfig' | 'hubKubeconfigDir' | 'clusterName' | 'agentId'>,
  src: NameSources,
): CompletedNames {
  const hubKubeconfig = opts.hubKubeconfig !== '' ? opts.hubKubeconfig : joinPath(opts.hubKubeconfigDir, 'kubeconfig');
  if (opts.clusterName !== '' && opts.agentId !== '') {
    return { hubKubeconfig, clusterName: opts.clusterName, agentId: opts.agentId };
  }
  // A readable file is taken as it is, even empty, as OCM's agent does: an empty cluster-name
  // then fails validation ("cluster name is empty") instead of joining under a new random name.
  const clusterName = opts.clusterName !== '' ? opts.clusterName : src.clusterNameFile ?? src.newUuid();
  const agentId = opts.agentId !== '' ? opts.agentId : src.agentNameFile ?? src.newAgentId();
  return { hubKubeconfig, clusterName, agentId };
}

function joinPath(dir: string, file: string): string {
  return dir.endsWith('/') ? `${dir}${file}` : `${dir}/${file}`;
}

/** Last, the completed cluster name. */
export function validateClusterName(name: string): string | undefined {
  if (name === '') return 'cluster name is empty';
  const errs = dns1123LabelErrors(name);
  if (errs.length > 0) return `metadata.name format is not correct: ${errs.join(',')}`;
  return undefined;
}

const LABEL_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL_REGEX_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

/** Kubernetes' IsDNS1123Label messages. */
export function dns1123LabelErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!LABEL_RE.test(value)) {
    errs.push(SUBDOMAIN_RE.test(value) ? 'must not contain dots' : LABEL_REGEX_MESSAGE);
  }
  return errs;
}
