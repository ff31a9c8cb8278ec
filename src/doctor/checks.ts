// The links of a cluster's registration, in the order a join goes through them, each judged from
// the gathered facts alone (pure): hub → bootstrap kubeconfig → bootstrap token → ManagedCluster →
// CSR → acceptance → certificate → hub kubeconfig secret → joined → lease → clock → agent health.
// For a broken link the check says what is wrong and the command that fixes it.
import type { CertificateSigningRequest } from '../api/core.js';
import { conditionTypes, DEFAULT_LEASE_DURATION_SECONDS, LEASE_DURATION_TIMES, names, reasons } from '../api/constants.js';
import { findCondition } from '../api/conditions.js';
import { humanAge } from '../cli/cluster-table.js';
import type { DoctorContext, DoctorFacts, HttpsProbe } from './facts.js';

export type CheckStatus = 'ok' | 'fail' | 'warn' | 'skip';

export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  /** One line: what was found. */
  detail: string;
  /** For a failure: what is wrong, in a sentence. */
  problem?: string;
  /** For a failure: the command (or step) that fixes it. */
  fix?: string;
}

/** Clocks further apart than this are reported (the Date header has a one-second resolution). */
const MAX_CLOCK_SKEW_MS = 30_000;
/** The agent starts rotating when this share of its certificate's lifetime is left (20–25 %). */
const ROTATION_REMAINING_SHARE = 0.2;

type Check = (f: DoctorFacts, c: DoctorContext) => CheckResult;

const ok = (id: string, title: string, detail: string): CheckResult => ({ id, title, status: 'ok', detail });
const skip = (id: string, title: string, detail: string): CheckResult => ({ id, title, status: 'skip', detail });
const fail = (id: string, title: string, detail: string, problem: string, fix: string): CheckResult => ({ id, title, status: 'fail', detail, problem, fix });

function spokeArg(c: DoctorContext): string {
  return c.spokeKubeconfig ?? 'SPOKE_KUBECONFIG';
}

function joinCommand(c: DoctorContext): string {
  return `ocm-ts hub token --kubeconfig ${c.hubKubeconfig} --create > bootstrap.kubeconfig && ocm-ts join --hub-kubeconfig bootstrap.kubeconfig --cluster-name ${c.cluster} --kubeconfig ${spokeArg(c)}`;
}

function acceptCommand(c: DoctorContext): string {
  return `ocm-ts accept ${c.cluster} --kubeconfig ${c.hubKubeconfig}`;
}

function deleteHubSecretCommand(c: DoctorContext): string {
  return `kubectl --kubeconfig ${spokeArg(c)} -n ${names.agentNamespace} delete secret ${names.hubKubeconfigSecret} (the agent then bootstraps again), then ${acceptCommand(c)}`;
}

function probeError(p: HttpsProbe): string {
  return p.error ?? (p.status !== undefined ? `HTTP ${p.status}` : 'no answer');
}

const hubReachable: Check = (f, c) => {
  const t = 'hub reachable';
  if (f.hub.probe.status === 200) return ok('hub', t, `${f.hub.server}${f.hub.version ? ` (${f.hub.version})` : ''}`);
  return fail('hub', t, `${f.hub.server}: ${probeError(f.hub.probe)}`, `the hub API server at ${f.hub.server} does not answer ${c.hubKubeconfig}'s requests (${probeError(f.hub.probe)})`, `start the hub (ocm-ts hub --data-dir DIR), or pass the hub's admin kubeconfig with --kubeconfig`);
};

const bootstrapCa: Check = (f, c) => {
  const t = 'hub CA matches the bootstrap kubeconfig';
  const b = f.bootstrap;
  if (!b) return skip('bootstrap-ca', t, 'no bootstrap kubeconfig: pass --spoke-kubeconfig or --bootstrap-kubeconfig');
  if (b.probe.status !== undefined) return ok('bootstrap-ca', t, `${b.source}: ${b.server}`);
  const problem = b.probe.tlsVerifyFailed
    ? `the hub's serving certificate at ${b.server} does not verify with the CA in ${b.source} (${b.probe.error}): the hub's CA changed or the kubeconfig is another hub's`
    : `${b.server} from ${b.source} cannot be reached (${probeError(b.probe)})`;
  return fail('bootstrap-ca', t, `${b.source}: ${probeError(b.probe)}`, problem, joinCommand(c));
};

const bootstrapToken: Check = (f, c) => {
  const t = 'bootstrap token valid';
  const b = f.bootstrap;
  if (!b) return skip('bootstrap-token', t, 'no bootstrap kubeconfig: pass --spoke-kubeconfig or --bootstrap-kubeconfig');
  if (b.probe.status === undefined) return skip('bootstrap-token', t, 'the hub could not be reached with it');
  const id = b.tokenId ? `token ${b.tokenId}` : 'credentials';
  if (b.tokenSecret && !b.tokenSecret.found) {
    return fail('bootstrap-token', t, `${id}: no kube-system/bootstrap-token-${b.tokenId} on the hub`, `the bootstrap token ${b.tokenId} in ${b.source} was deleted from the hub`, joinCommand(c));
  }
  const exp = b.tokenSecret?.expiresAtMs;
  if (exp !== undefined && exp <= f.nowMs) {
    return fail('bootstrap-token', t, `${id}: expired ${humanAge(f.nowMs - exp)} ago`, `the bootstrap token ${b.tokenId} in ${b.source} expired at ${new Date(exp).toISOString()}`, joinCommand(c));
  }
  if (b.probe.status === 401) return fail('bootstrap-token', t, `${id}: 401 Unauthorized`, `the hub does not accept the credentials of ${b.source} (401 Unauthorized)`, joinCommand(c));
  return ok('bootstrap-token', t, `${id} accepted by the hub${exp !== undefined ? `, expires in ${humanAge(exp - f.nowMs)}` : ''}`);
};

const clusterExists: Check = (f, c) => {
  const t = 'ManagedCluster exists';
  if (f.managedCluster === undefined) return skip('cluster', t, 'the hub could not be read');
  if (f.managedCluster === null) {
    return fail('cluster', t, `no ManagedCluster ${c.cluster}`, `the hub has no ManagedCluster ${c.cluster}: its agent never registered (not running, or it cannot reach the hub)`, joinCommand(c));
  }
  if (f.managedCluster.metadata.deletionTimestamp) {
    return fail('cluster', t, `${c.cluster} is being deleted`, `ManagedCluster ${c.cluster} is being deleted (since ${f.managedCluster.metadata.deletionTimestamp})`, `wait for the deletion to finish, then ${joinCommand(c)}`);
  }
  return ok('cluster', t, c.cluster);
};

function csrCondition(csr: CertificateSigningRequest, type: string): { reason?: string; message?: string } | undefined {
  return csr.status?.conditions?.find((x) => x.type === type && x.status !== 'False');
}

function latestCsr(csrs: readonly CertificateSigningRequest[]): CertificateSigningRequest | undefined {
  const created = (x: CertificateSigningRequest): number => Date.parse(x.metadata.creationTimestamp ?? '') || 0;
  return [...csrs].sort((a, b) => created(b) - created(a) || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''))[0];
}

function isJoined(f: DoctorFacts): boolean {
  return findCondition(f.managedCluster?.status?.conditions, conditionTypes.joined)?.status === 'True';
}

const csrCheck: Check = (f, c) => {
  const t = 'CSR approved and signed';
  if (!f.managedCluster) return skip('csr', t, 'no ManagedCluster');
  const csr = latestCsr(f.csrs);
  if (!csr) {
    if (isJoined(f)) return ok('csr', t, 'none left (the certificate was issued earlier)');
    return fail('csr', t, 'no CSR', `the agent of ${c.cluster} has not asked for a certificate (no CSR labelled ${c.cluster}): it is not running or cannot reach the hub`, joinCommand(c));
  }
  const name = csr.metadata.name ?? '';
  const denied = csrCondition(csr, 'Denied');
  if (denied) {
    return fail('csr', t, `${name} denied`, `CSR ${name} was denied${denied.message ? ` (${denied.message})` : ''}: the agent waits on it and never gets a certificate`, `kubectl --kubeconfig ${c.hubKubeconfig} delete csr ${name} (the agent asks again), then ${acceptCommand(c)}`);
  }
  const failed = csrCondition(csr, 'Failed');
  if (failed) {
    return fail('csr', t, `${name} failed`, `the signer refused CSR ${name}: ${failed.reason ?? ''}${failed.message ? ` ${failed.message}` : ''}`.trim(), `kubectl --kubeconfig ${c.hubKubeconfig} delete csr ${name} (the agent asks again), then ${acceptCommand(c)}`);
  }
  if (!csrCondition(csr, 'Approved')) return fail('csr', t, `${name} pending`, `CSR ${name} of ${c.cluster} waits for approval`, acceptCommand(c));
  if (!csr.status?.certificate) {
    return fail('csr', t, `${name} approved, not signed`, `CSR ${name} is approved but no certificate was issued: the hub's signer (kube-controller-manager's csrsigning, or the embedded server's) is not running`, 'check the hub\'s CSR signer');
  }
  return ok('csr', t, `${name} approved and signed`);
};

const accepted: Check = (f, c) => {
  const t = 'accepted by the hub';
  const mc = f.managedCluster;
  if (!mc) return skip('accepted', t, 'no ManagedCluster');
  if (mc.spec?.hubAcceptsClient === true) return ok('accepted', t, 'hubAcceptsClient: true');
  const denied = findCondition(mc.status?.conditions, conditionTypes.hubAccepted);
  const wasDenied = denied?.status === 'False' && denied.reason === reasons.hubClusterAdminDenied;
  return fail(
    'accepted',
    t,
    'hubAcceptsClient: false',
    wasDenied ? `${c.cluster} was denied by the hub admin (hubAcceptsClient set to false): its agent's permissions on the hub were removed` : `${c.cluster} has not been accepted (spec.hubAcceptsClient is not true)`,
    acceptCommand(c),
  );
};

const certificate: Check = (f, c) => {
  const t = 'client certificate valid';
  const fromSecret = f.spoke?.hubSecret?.cert;
  let cert = fromSecret;
  let source = `secret ${names.hubKubeconfigSecret} on the spoke`;
  if (!cert && f.issuedCert) {
    cert = f.issuedCert;
    source = `CSR ${f.issuedCert.csr}`;
  }
  if (!cert) return skip('certificate', t, 'no certificate to look at');
  const total = cert.notAfterMs - cert.notBeforeMs;
  if (cert.notAfterMs <= f.nowMs) {
    return fail('certificate', t, `${source}: expired ${humanAge(f.nowMs - cert.notAfterMs)} ago`, `the agent's client certificate (${source}) expired at ${new Date(cert.notAfterMs).toISOString()} without being rotated`, deleteHubSecretCommand(c));
  }
  if (cert.notBeforeMs > f.nowMs) {
    return fail('certificate', t, `${source}: not valid before ${new Date(cert.notBeforeMs).toISOString()}`, `the agent's client certificate is not valid yet: this machine's clock or the hub's is wrong`, 'synchronise the clocks (NTP) of the hub, the spoke and this machine');
  }
  const rotateAt = cert.notAfterMs - ROTATION_REMAINING_SHARE * total;
  const rotation = rotateAt <= f.nowMs ? 'rotation due now' : `rotation in about ${humanAge(rotateAt - f.nowMs)}`;
  return ok('certificate', t, `${source}: expires in ${humanAge(cert.notAfterMs - f.nowMs)}, ${rotation}`);
};

const hubSecret: Check = (f, c) => {
  const t = 'hub kubeconfig secret on the spoke';
  const s = f.spoke;
  if (!s) return skip('hub-secret', t, 'not checked: pass --spoke-kubeconfig');
  if (s.probe.status === undefined) {
    return fail('hub-secret', t, `spoke ${s.server}: ${probeError(s.probe)}`, `the spoke API server at ${s.server} cannot be reached (${probeError(s.probe)})`, `check --spoke-kubeconfig ${spokeArg(c)}`);
  }
  const h = s.hubSecret;
  const where = `${names.agentNamespace}/${names.hubKubeconfigSecret}`;
  if (!h || !h.present) {
    return fail('hub-secret', t, `no secret ${where}`, `the spoke has no ${where}: the agent has not received its certificate, or the secret was deleted and the agent is not running to bootstrap again`, joinCommand(c));
  }
  if (h.unreadable) return fail('hub-secret', t, `${where}: ${h.unreadable}`, `${where} is not a usable hub kubeconfig: ${h.unreadable}`, deleteHubSecretCommand(c));
  if (h.clusterName !== undefined && h.clusterName !== c.cluster) {
    return fail('hub-secret', t, `${where} is for cluster ${h.clusterName}`, `${where} holds the credentials of cluster ${h.clusterName}, not ${c.cluster}`, deleteHubSecretCommand(c));
  }
  const p = h.probe;
  if (p && p.status === undefined) {
    const problem = p.tlsVerifyFailed
      ? `the hub's serving certificate at ${h.server} does not verify with the CA in ${where} (${p.error}): the hub's CA changed since the cluster joined`
      : `${h.server} from ${where} cannot be reached (${probeError(p)})`;
    return fail('hub-secret', t, `${where}: ${probeError(p)}`, problem, deleteHubSecretCommand(c));
  }
  if (p?.status === 401) return fail('hub-secret', t, `${where}: 401 Unauthorized`, `the hub does not accept the client certificate in ${where} (401 Unauthorized)`, deleteHubSecretCommand(c));
  return ok('hub-secret', t, `${where}${h.cert ? ` (${h.cert.commonName})` : ''}`);
};

const joined: Check = (f, c) => {
  const t = 'joined';
  const mc = f.managedCluster;
  if (!mc) return skip('joined', t, 'no ManagedCluster');
  const j = findCondition(mc.status?.conditions, conditionTypes.joined);
  if (j?.status === 'True') return ok('joined', t, `since ${j.lastTransitionTime}`);
  return fail('joined', t, j ? `${j.status} (${j.reason})` : 'no condition yet', `${c.cluster} has not joined: its agent has not used its new certificate on the hub yet`, `look at the agent's log on the spoke; if it is not running: ${joinCommand(c)}`);
};

const lease: Check = (f, c) => {
  const t = 'lease renewed';
  const mc = f.managedCluster;
  if (!mc) return skip('lease', t, 'no ManagedCluster');
  if (f.lease === undefined) return skip('lease', t, 'not read');
  const duration = mc.spec?.leaseDurationSeconds || DEFAULT_LEASE_DURATION_SECONDS;
  const graceMs = duration * LEASE_DURATION_TIMES * 1000;
  const renew = f.lease?.spec?.renewTime ? Date.parse(f.lease.spec.renewTime) : undefined;
  if (renew === undefined) {
    return fail('lease', t, `no ${names.clusterLease} renewal`, `the agent of ${c.cluster} has never renewed its lease ${c.cluster}/${names.clusterLease}`, `start the agent: ${joinCommand(c)}`);
  }
  const age = Math.max(0, f.nowMs - renew);
  const detail = `renewed ${humanAge(age)} ago (grace ${humanAge(graceMs)} = ${LEASE_DURATION_TIMES} × ${duration}s)`;
  if (age > graceMs) {
    return fail('lease', t, detail, `the agent of ${c.cluster} stopped renewing its lease ${humanAge(age)} ago: it is not running, or cannot reach the hub; the hub marks the cluster Available=Unknown`, `start the agent again (look at its log), e.g. ocm-ts join --hub-kubeconfig BOOTSTRAP_KUBECONFIG --cluster-name ${c.cluster} --kubeconfig ${spokeArg(c)}`);
  }
  return ok('lease', t, detail);
};

const clock: Check = (f, c) => {
  const t = 'clocks in sync';
  const cond = findCondition(f.managedCluster?.status?.conditions, conditionTypes.clockSynced);
  const hubTime = f.hub.probe.serverTimeMs;
  const spokeTime = f.spoke?.probe.serverTimeMs;
  const skew = hubTime !== undefined && spokeTime !== undefined ? spokeTime - hubTime : undefined;
  const measured = skew === undefined ? '' : `spoke − hub ≈ ${Math.round(skew / 1000)}s`;
  if (cond?.status === 'False') {
    return fail('clock', t, `${cond.reason}${measured ? `, ${measured}` : ''}`, `the hub sees ${c.cluster}'s clock out of sync with its own (${cond.message ?? cond.reason})`, 'synchronise the clocks (NTP) of the hub and the managed cluster');
  }
  if (skew !== undefined && Math.abs(skew) > MAX_CLOCK_SKEW_MS) {
    return fail('clock', t, measured, `the spoke's clock and the hub's differ by about ${Math.round(Math.abs(skew) / 1000)} s`, 'synchronise the clocks (NTP) of the hub and the managed cluster');
  }
  if (!cond && skew === undefined) return skip('clock', t, 'no ClockSynced condition yet');
  return ok('clock', t, [cond ? `${cond.reason}` : '', measured].filter((x) => x).join(', '));
};

const agentHealth: Check = (f) => {
  const t = 'agent health endpoint';
  const h = f.agentHealth;
  if (!h) return skip('agent-health', t, 'not checked: pass --agent-url');
  if (h.probe.status === 200) return ok('agent-health', t, `${h.url}/healthz: ok`);
  const detail = `${h.url}/healthz: ${probeError(h.probe)}${h.body ? ` ${h.body.trim().split('\n').slice(-3).join('; ')}` : ''}`;
  return fail('agent-health', t, detail, `the agent's health endpoint reports a failure (${detail})`, "look at the agent's log; a failing hub-kube-config check means its hub kubeconfig is invalid and it is bootstrapping again");
};

const CHECKS: readonly Check[] = [hubReachable, bootstrapCa, bootstrapToken, clusterExists, csrCheck, accepted, certificate, hubSecret, joined, lease, clock, agentHealth];

export function runChecks(f: DoctorFacts, c: DoctorContext): CheckResult[] {
  return CHECKS.map((check) => check(f, c));
}
