// Discovery documents: /api, /apis, /apis/<g>, /api/v1, /apis/<g>/<v>, /version (OpenAPI lives in ../openapi/).

import { createHash } from 'node:crypto';
import type { ResourceDef } from '../pipeline.js';
import type { ResourceRegistry } from '../registry/resource-registry.js';

export const VERSION_INFO = {
  major: '1',
  minor: '30',
  gitVersion: 'v1.30.0+ocm-ts',
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-01-01T00:00:00Z',
  goVersion: 'n/a',
  compiler: 'node',
  platform: 'linux/amd64',
};

/** Kubernetes version priority: GA > beta > alpha, higher numbers first, others last alphabetically. */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string): [number, number, number] | undefined => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return undefined;
    const stage = m[2] === undefined ? 3 : m[2] === 'beta' ? 2 : 1;
    return [stage, Number(m[1]), m[3] === undefined ? 0 : Number(m[3])];
  };
  const pa = parse(a);
  const pb = parse(b);
  if (pa && !pb) return -1;
  if (!pa && pb) return 1;
  if (!pa || !pb) return a.localeCompare(b);
  if (pa[0] !== pb[0]) return pb[0] - pa[0];
  if (pa[1] !== pb[1]) return pb[1] - pa[1];
  return pb[2] - pa[2];
}

interface GroupVersions {
  name: string;
  versions: string[];
}

function allDefs(reg: ResourceRegistry): ResourceDef[] {
  return [...reg.all().map((r) => r.def), ...reg.virtuals().map((v) => v.def)];
}

function groups(reg: ResourceRegistry): GroupVersions[] {
  const map = new Map<string, Set<string>>();
  for (const d of allDefs(reg)) {
    if (d.group === '') continue;
    const set = map.get(d.group) ?? new Set<string>();
    for (const v of d.versions) set.add(v);
    map.set(d.group, set);
  }
  return [...map.entries()].map(([name, vs]) => ({ name, versions: [...vs].sort(compareVersions) }));
}

function apiGroup(g: GroupVersions): Record<string, unknown> {
  const versions = g.versions.map((v) => ({ groupVersion: `${g.name}/${v}`, version: v }));
  return { name: g.name, versions, preferredVersion: versions[0] };
}

export function apiVersions(serverAddress: string): Record<string, unknown> {
  return { kind: 'APIVersions', versions: ['v1'], serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }] };
}

export function apiGroupList(reg: ResourceRegistry): Record<string, unknown> {
  return { kind: 'APIGroupList', apiVersion: 'v1', groups: groups(reg).map(apiGroup) };
}

export function apiGroupDoc(reg: ResourceRegistry, group: string): Record<string, unknown> | undefined {
  const g = groups(reg).find((x) => x.name === group);
  return g ? { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup(g) } : undefined;
}

const SUBRESOURCE_VERBS: Record<string, string[]> = { finalize: ['update'] };

/** The order kube-apiserver lists the verbs of a custom resource in (built-ins are sorted). */
const CUSTOM_VERB_ORDER = ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'];

/** Lets clients notice a storage version change: the first 8 bytes of SHA-256 of group/version/kind, base64, as kube-apiserver computes it. */
export function storageVersionHash(group: string, version: string, kind: string): string {
  return createHash('sha256').update(`${group}/${version}/${kind}`).digest().subarray(0, 8).toString('base64');
}

function verbsOf(verbs: string[], custom: boolean): string[] {
  if (!custom) return verbs;
  const rank = (v: string): number => (CUSTOM_VERB_ORDER.includes(v) ? CUSTOM_VERB_ORDER.indexOf(v) : CUSTOM_VERB_ORDER.length);
  return [...verbs].sort((a, b) => rank(a) - rank(b));
}

export function apiResourceList(reg: ResourceRegistry, group: string, version: string): Record<string, unknown> | undefined {
  const entries: Record<string, unknown>[] = [];
  for (const r of reg.all()) {
    const d = r.def;
    if (d.group !== group || !d.versions.includes(version)) continue;
    entries.push({
      name: d.resource, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: verbsOf(d.verbs, r.custom),
      storageVersionHash: storageVersionHash(d.group, d.storageVersion, d.kind),
      ...(d.shortNames.length > 0 ? { shortNames: d.shortNames } : {}),
      ...(d.categories.length > 0 ? { categories: d.categories } : {}),
    });
    for (const s of r.subresources) {
      entries.push({
        name: `${d.resource}/${s.name}`, singularName: '', namespaced: d.namespaced,
        ...(s.kind ? { group: s.kind.group, version: s.kind.version, kind: s.kind.kind } : { kind: d.kind }),
        verbs: SUBRESOURCE_VERBS[s.name] ?? s.verbs,
      });
    }
  }
  for (const v of reg.virtuals()) {
    const d = v.def;
    if (d.group !== group || !d.versions.includes(version)) continue;
    entries.push({ name: d.resource, singularName: d.singular, namespaced: d.namespaced, kind: d.kind, verbs: ['create'] });
  }
  if (entries.length === 0) return undefined;
  entries.sort((a, b) => (String(a.name) < String(b.name) ? -1 : String(a.name) > String(b.name) ? 1 : 0));
  return { kind: 'APIResourceList', apiVersion: 'v1', groupVersion: group ? `${group}/${version}` : version, resources: entries };
}
