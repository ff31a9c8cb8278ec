// `ocm-ts hub token`: the bootstrap kubeconfig a managed cluster joins with, as `clusteradm get token`
// gives it: a bootstrap token of the hub bound to OCM's bootstrap ClusterRole (through the group
// system:bootstrappers:managedcluster), the hub's URL and its CA. Picking a token and rendering the
// kubeconfig are pure; findOrCreateBootstrapToken does the API calls.
import type { Secret } from '../api/core.js';
import type { KubeObject } from '../api/meta.js';
import { isNotFound } from '../client/errors.js';
import { resourceTypes } from '../client/resource-types.js';
import type { KubeClient } from '../client/types.js';
import { BOOTSTRAP_GROUP, bootstrapTokenSecret, randomTokenPart, reusableToken } from '../hub/bootstrap-token.js';
import { toYaml } from '../util/yaml.js';

interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

interface BootstrapToken {
  token: string;
  expiresAtMs: number;
}

const dec = (v: string | undefined): string => (v === undefined ? '' : Buffer.from(v, 'base64').toString('utf8'));

/**
 * The usable token with the most time left among kube-system's secrets: a well-formed bootstrap
 * token for authentication whose extra groups include OCM's bootstrap group (made by ocm-ts or by
 * an admin), with at least `minRemainingMs` left.
 */
export function pickBootstrapToken(secrets: readonly Secret[], nowMs: number, minRemainingMs: number): BootstrapToken | undefined {
  let best: BootstrapToken | undefined;
  for (const s of secrets) {
    const groups = dec(s.data?.['auth-extra-groups']).split(',').map((g) => g.trim());
    if (!groups.includes(BOOTSTRAP_GROUP)) continue;
    const t = reusableToken(s, nowMs, minRemainingMs);
    if (t && (!best || t.expiresAtMs > best.expiresAtMs)) best = t;
  }
  return best;
}

/** A kubeconfig with one cluster (the hub), one user (the token) and one context, as `clusteradm get token` writes it. */
export function renderBootstrapKubeconfig(o: { server: string; caPem: string; token: string }): string {
  return toYaml({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'hub', cluster: { server: o.server, 'certificate-authority-data': Buffer.from(o.caPem).toString('base64') } }],
    users: [{ name: 'bootstrap', user: { token: o.token } }],
    contexts: [{ name: 'bootstrap', context: { cluster: 'hub', user: 'bootstrap' } }],
    'current-context': 'bootstrap',
  });
}

/**
 * The hub's CA for joining clusters: the one in the admin's kubeconfig, else the `kube-root-ca.crt`
 * ConfigMap every namespace of a real cluster carries.
 */
export async function hubCaPem(client: KubeClient, kubeconfigCaPem: string | undefined, signal?: AbortSignal): Promise<string> {
  if (kubeconfigCaPem) return kubeconfigCaPem;
  try {
    const cm = await client.resource<ConfigMap>(resourceTypes.configMaps, 'kube-public').get('kube-root-ca.crt', signal ? { signal } : {});
    const ca = cm.data?.['ca.crt'];
    if (ca) return ca;
  } catch (err) {
    if (!isNotFound(err)) throw err;
  }
  throw new Error('the hub kubeconfig has no certificate-authority and the hub has no kube-public/kube-root-ca.crt ConfigMap: cannot tell joining clusters how to trust the hub');
}

/**
 * Finds a bootstrap token with at least a tenth of `ttlMs` left; when there is none and `create` is
 * set, creates one valid for `ttlMs`. Returns undefined when there is none and creating was not asked.
 */
export async function findOrCreateBootstrapToken(
  client: KubeClient,
  o: { ttlMs: number; create: boolean; nowMs: number; signal?: AbortSignal },
): Promise<(BootstrapToken & { created: boolean }) | undefined> {
  const call = o.signal ? { signal: o.signal } : {};
  const secrets = client.resource<Secret>(resourceTypes.secrets, 'kube-system');
  const found = pickBootstrapToken((await secrets.list(call)).items, o.nowMs, o.ttlMs / 10);
  if (found) return { ...found, created: false };
  if (!o.create) return undefined;
  const id = randomTokenPart(6);
  const secret = randomTokenPart(16);
  const expiresAtMs = o.nowMs + o.ttlMs;
  await secrets.create(bootstrapTokenSecret(id, secret, expiresAtMs), call);
  return { token: `${id}.${secret}`, expiresAtMs, created: true };
}
