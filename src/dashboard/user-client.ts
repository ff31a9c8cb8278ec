// API clients that act as the signed-in user, never as the hub's own identities: a token user's
// token is forwarded as it is; a certificate user is impersonated by the identity given for that
// (the hub admin's, in embedded mode), so the API server's RBAC judges the user, not the dashboard.

import { ApiStatusError } from '../client/errors.js';
import type { ClientConfig } from '../client/kubeconfig.js';
import { createKubeClient } from '../client/rest-client.js';
import type { KubeClient } from '../client/types.js';
import type { Identity } from './auth.js';

/** Where the API server is and how to trust it. */
export interface ApiTarget {
  server: string;
  caPem?: string;
  tlsServerName?: string;
  insecureSkipTlsVerify?: boolean;
}

export interface UserClients {
  forIdentity(id: Identity): KubeClient;
  /** Whether certificate users can be served (an impersonating identity was given). */
  readonly impersonates: boolean;
  close(): void;
}

function targetConfig(t: ApiTarget): Omit<ClientConfig, 'contextName'> {
  return {
    server: t.server,
    ...(t.caPem !== undefined ? { caPem: t.caPem } : {}),
    ...(t.tlsServerName !== undefined ? { tlsServerName: t.tlsServerName } : {}),
    ...(t.insecureSkipTlsVerify ? { insecureSkipTlsVerify: true } : {}),
  };
}

export function userClients(target: ApiTarget, impersonator?: ClientConfig): UserClients {
  const cache = new Map<string, KubeClient>();
  const cached = (key: string, make: () => KubeClient): KubeClient => {
    let c = cache.get(key);
    if (!c) {
      c = make();
      cache.set(key, c);
    }
    return c;
  };
  return {
    impersonates: impersonator !== undefined,
    forIdentity(id) {
      if (id.kind === 'token') return cached(`token\0${id.token}`, () => createKubeClient({ ...targetConfig(target), token: id.token, contextName: 'dashboard-user' }, { userAgent: 'ocm-ts-dashboard' }));
      if (!impersonator) throw new Error('client certificates are not accepted by this dashboard');
      return cached(`cert\0${id.user}\0${id.groups.join('\0')}`, () =>
        createKubeClient({ ...impersonator, impersonate: { user: id.user, groups: id.groups } }, { userAgent: 'ocm-ts-dashboard' }),
      );
    },
    close() {
      for (const c of cache.values()) c.close();
      cache.clear();
    },
  };
}

/**
 * Whether the API server accepts `token` (asked as that token with a SelfSubjectAccessReview, which
 * every authenticated user may create): 'invalid' on 401, else 'valid'. Other failures throw.
 */
export async function checkToken(target: ApiTarget, token: string, signal?: AbortSignal): Promise<'valid' | 'invalid'> {
  const client = createKubeClient({ ...targetConfig(target), token, contextName: 'dashboard-login' }, { userAgent: 'ocm-ts-dashboard', timeoutMs: 10_000 });
  try {
    await client.request('POST', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { group: 'cluster.open-cluster-management.io', resource: 'managedclusters', verb: 'list' } },
    }, signal ? { signal } : {});
    return 'valid';
  } catch (err) {
    if (err instanceof ApiStatusError && err.code === 401) return 'invalid';
    throw err;
  } finally {
    client.close();
  }
}
