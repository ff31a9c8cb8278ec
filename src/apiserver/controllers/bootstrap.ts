// Objects that exist from first start, as on a fresh kube-apiserver: system namespaces, the
// bootstrap RBAC policy, kube-public/cluster-info. Idempotent; runs before the server reports ready.

import type { KubeObject } from '../../api/meta.js';
import { toYaml } from '../../util/yaml.js';
import { ApiError } from '../http/errors.js';
import type { RegistryContext } from '../registry/rest-context.js';
import { createObject } from '../registry/rest-writes.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';
import { systemContext, systemScope } from './system-writes.js';

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export interface BootstrapOptions {
  registry: ResourceRegistry;
  regCtx: RegistryContext;
  /** Extra objects (bootstrap RBAC policy); created when missing, never overwritten. */
  objects: KubeObject[];
  caPem?: string;
  externalUrl: string;
}

function createIfMissing(o: BootstrapOptions, obj: KubeObject): void {
  const [group, version] = (obj.apiVersion ?? 'v1').includes('/') ? (obj.apiVersion as string).split('/') as [string, string] : ['', obj.apiVersion ?? 'v1'];
  const served = o.registry.all().find((r) => r.def.group === group && r.def.kind === obj.kind);
  if (!served) throw new Error(`bootstrap: no resource for ${obj.apiVersion} ${obj.kind}`);
  try {
    createObject(systemContext(o.regCtx), systemScope(served, version, obj.metadata.namespace ?? ''), obj);
  } catch (err) {
    if (err instanceof ApiError && err.reason === 'AlreadyExists') return;
    throw err;
  }
}

function clusterInfoKubeconfig(server: string, caPem: string): string {
  return toYaml({
    apiVersion: 'v1', kind: 'Config',
    clusters: [{ name: '', cluster: { server, 'certificate-authority-data': Buffer.from(caPem).toString('base64') } }],
    contexts: [], users: [], preferences: {}, 'current-context': '',
  });
}

export function bootstrapObjects(o: BootstrapOptions): void {
  for (const ns of SYSTEM_NAMESPACES) createIfMissing(o, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const obj of o.objects) createIfMissing(o, obj);
  if (o.caPem) {
    createIfMissing(o, {
      apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cluster-info', namespace: 'kube-public' },
      data: { kubeconfig: clusterInfoKubeconfig(o.externalUrl, o.caPem) },
    });
  }
}
