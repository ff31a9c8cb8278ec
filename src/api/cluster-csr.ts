// What makes a CertificateSigningRequest a managed cluster agent's. One set of rules for every path
// that approves or signs one (the hub's approver, `ocm-ts accept`, the demo, the embedded signer), so
// that a forged subject refused by one path cannot be approved or signed through another. Anyone
// holding the bootstrap token can create a CSR with any label and subject: the label is only a hint,
// the subject and the requester are what count. Pure.

import { annotations, clusterGroupName, labels, names } from './constants.js';
import type { CertificateSigningRequest } from './core.js';
import { decodeCsrRequest, type CsrSubject } from './csr-subject.js';

/** The usages OCM's agent asks for; `client auth` is required, nothing else is allowed. */
const AGENT_CSR_USAGES: readonly string[] = ['digital signature', 'key encipherment', 'client auth'];
/** OCM's bootstrap group, and the group Kubernetes gives every bootstrap token. */
const BOOTSTRAP_GROUPS: readonly string[] = ['system:bootstrappers:managedcluster', 'system:bootstrappers'];
/** Usernames of bootstrap tokens. */
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
const AUTHENTICATED_GROUP = 'system:authenticated';

export type ClusterCsrCheck = 'labels' | 'signer' | 'request' | 'subject' | 'usages' | 'requester';

export type ClusterCsrVerdict =
  | { valid: true; cluster: string; agentName: string; commonName: string }
  | { valid: false; check: ClusterCsrCheck; reason: string };

export interface ClusterCsrOptions {
  /** Requesters that count as bootstrap identities besides bootstrap tokens (e.g. a bootstrap service account). */
  bootstrapUsers?: readonly string[];
}

type Subject = Pick<CsrSubject, 'commonNames' | 'organizations'>;
type Requester = { username?: unknown; groups?: unknown };

/** `system:open-cluster-management:<cluster>:<agent>` split into its parts; undefined for any other name. */
function parseAgentUserName(name: string): { cluster: string; agentName: string } | undefined {
  if (!name.startsWith(names.userPrefix)) return undefined;
  const parts = name.slice(names.userPrefix.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { cluster: parts[0]!, agentName: parts[1]! };
}

function singleCommonName(subject: Subject): { cn: string } | { problem: string } {
  if (subject.commonNames.length !== 1) return { problem: `the subject has ${subject.commonNames.length} common names instead of one` };
  return { cn: subject.commonNames[0]! };
}

function extraOrganization(subject: Subject, allowed: readonly string[]): string | undefined {
  const extra = subject.organizations.find((o) => !allowed.includes(o));
  return extra === undefined ? undefined : `organization ${extra} is not allowed (only ${allowed.join(', ')})`;
}

/** Why `subject` is not an identity of `cluster`'s registration agent; undefined when it is. */
function agentSubjectProblem(cluster: string, subject: Subject): string | undefined {
  const one = singleCommonName(subject);
  if ('problem' in one) return one.problem;
  const expected = `${names.userPrefix}${cluster}:<agent>`;
  if (cluster === '' || cluster.includes(':') || parseAgentUserName(one.cn)?.cluster !== cluster) return `common name ${one.cn} is not ${expected}`;
  const group = clusterGroupName(cluster);
  const extra = extraOrganization(subject, [group, names.managedClustersGroup]);
  if (extra) return extra;
  if (!subject.organizations.includes(group)) return `organization ${group} is missing`;
  return undefined;
}

/** Why `subject` is not an identity of add-on `addon`'s agent on `cluster`; undefined when it is. */
function addonSubjectProblem(cluster: string, addon: string, subject: Subject): string | undefined {
  const one = singleCommonName(subject);
  if ('problem' in one) return one.problem;
  const group = `${names.userPrefix}cluster:${cluster}:addon:${addon}`;
  const prefix = `${group}:agent:`;
  const agent = one.cn.startsWith(prefix) ? one.cn.slice(prefix.length) : '';
  const badName = (n: string): boolean => n === '' || n.includes(':');
  if (badName(cluster) || badName(addon) || badName(agent)) return `common name ${one.cn} is not ${prefix}<agent>`;
  return extraOrganization(subject, [group, `${names.userPrefix}addon:${addon}`, AUTHENTICATED_GROUP]);
}

/**
 * For a CSR carrying OCM's cluster-name label: why its subject is not the identity the labels name
 * (that cluster's agent, or with the addon-name label that add-on's agent on that cluster).
 * Undefined when it is, and for CSRs without the label, which are not OCM's.
 */
export function labelledSubjectProblem(csrLabels: Readonly<Record<string, string>> | undefined, subject: Subject): string | undefined {
  const cluster = csrLabels?.[labels.clusterName];
  if (cluster === undefined) return undefined;
  const addon = csrLabels?.[labels.addonName];
  return addon === undefined ? agentSubjectProblem(cluster, subject) : addonSubjectProblem(cluster, addon, subject);
}

/** Why `usages` are not those of an agent's client certificate; undefined when they are. */
function agentUsagesProblem(usages: unknown): string | undefined {
  if (!Array.isArray(usages)) return 'spec.usages is missing';
  const bad = usages.find((u) => typeof u !== 'string' || !AGENT_CSR_USAGES.includes(u));
  if (bad !== undefined) return `usage ${String(bad)} is not allowed (only ${AGENT_CSR_USAGES.join(', ')})`;
  if (!usages.includes('client auth')) return 'usages lack client auth';
  return undefined;
}

/** A bootstrap token (by group or username) or one of the extra bootstrap users. */
function isBootstrapRequester(spec: Requester, bootstrapUsers: readonly string[] = []): boolean {
  const user = typeof spec.username === 'string' ? spec.username : '';
  const groups = Array.isArray(spec.groups) ? spec.groups : [];
  if (groups.some((g) => BOOTSTRAP_GROUPS.includes(g as string))) return true;
  return user.startsWith(BOOTSTRAP_USER_PREFIX) || (user !== '' && bootstrapUsers.includes(user));
}

/** Why the CSR's creator may not ask for `cluster`'s agent certificate; undefined when it may. */
function requesterProblem(spec: Requester, cluster: string, bootstrapUsers: readonly string[] = []): string | undefined {
  if (isBootstrapRequester(spec, bootstrapUsers)) return undefined;
  const user = typeof spec.username === 'string' ? spec.username : '';
  if (parseAgentUserName(user)?.cluster === cluster) return undefined;
  return `requester ${user === '' ? '<none>' : user} is neither a bootstrap identity nor an agent of cluster ${cluster}`;
}

const invalid = (check: ClusterCsrCheck, reason: string): ClusterCsrVerdict => ({ valid: false, check, reason });

/**
 * Who asked for the certificate. The hub's gRPC server creates gRPC-signer CSRs with its own
 * identity on behalf of agents and names the agent in the csr-user annotation (as OCM's does), so
 * for that signer the annotation is the requester (with no groups); for others the API server's
 * record in the spec.
 */
export function csrRequester(csr: CertificateSigningRequest): Requester & { username?: string } {
  const spec: Partial<CertificateSigningRequest['spec']> = csr.spec ?? {};
  if (spec.signerName === names.grpcSigner) {
    const user = csr.metadata?.annotations?.[annotations.csrUser];
    return user !== undefined && user !== '' ? { username: user, groups: [] } : { groups: [] };
  }
  return { ...(typeof spec.username === 'string' ? { username: spec.username } : {}), groups: spec.groups };
}

const AGENT_SIGNERS: readonly string[] = [names.kubeApiserverClientSigner, names.grpcSigner];

/**
 * Is `csr` a request for a managed cluster agent's hub client certificate, made by a bootstrap
 * identity or by that cluster's own agent? Never throws: garbage is invalid with a reason.
 */
export function validateClusterCsr(csr: CertificateSigningRequest, opts: ClusterCsrOptions = {}): ClusterCsrVerdict {
  const csrLabels = csr.metadata?.labels ?? {};
  const cluster = csrLabels[labels.clusterName];
  if (cluster === undefined) return invalid('labels', `it has no ${labels.clusterName} label`);
  if (cluster === '') return invalid('labels', `its ${labels.clusterName} label is empty`);
  if (csrLabels[labels.addonName] !== undefined) return invalid('labels', `it carries the ${labels.addonName} label: an add-on's CSR, not the cluster's`);
  const spec: Partial<CertificateSigningRequest['spec']> = csr.spec ?? {};
  if (!AGENT_SIGNERS.includes(spec.signerName as string)) return invalid('signer', `signer ${String(spec.signerName)} is not ${AGENT_SIGNERS.join(' or ')}`);
  const decoded = decodeCsrRequest(spec.request);
  if (!decoded.ok) return invalid('request', decoded.reason);
  const subjectProblem = agentSubjectProblem(cluster, decoded.subject);
  if (subjectProblem) return invalid('subject', subjectProblem);
  const usagesProblem = agentUsagesProblem(spec.usages);
  if (usagesProblem) return invalid('usages', usagesProblem);
  const who = requesterProblem(csrRequester(csr), cluster, opts.bootstrapUsers);
  if (who) return invalid('requester', who);
  const commonName = decoded.subject.commonNames[0]!;
  return { valid: true, cluster, agentName: parseAgentUserName(commonName)!.agentName, commonName };
}
