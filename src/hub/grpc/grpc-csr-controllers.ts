// The hub's gRPC driver for CSRs of OCM's gRPC signer (open-cluster-management.io/grpc): the
// approver (renewals after a SubjectAccessReview, listed bootstrap users under
// ManagedClusterAutoApproval) and the signer, which issues the client certificate with the gRPC CA.
// These CSRs are created by the hub's own gRPC server on the agent's behalf, so the approver trusts
// the csr-user annotation only on CSRs whose API-recorded creator is the hub itself.

import { rfc3339 } from '../../api/conditions.js';
import { labelledSubjectProblem } from '../../api/cluster-csr.js';
import { GROUP_REGISTER, names, reasons, annotations } from '../../api/constants.js';
import type { CertificateSigningRequest, SubjectAccessReview } from '../../api/core.js';
import { decodeCsrRequest } from '../../api/csr-subject.js';
import type { Controller, KubeClient, ReconcileResult } from '../../client/types.js';
import { errorMessage } from '../../util/errors.js';
import { signCsr, type SigningCa } from '../../util/x509.js';
import type { HubContext } from '../common/context.js';
import { APPROVAL_MESSAGE, planApproval } from '../csr/csr-approval-decision.js';
import type { GrpcDriverSettings } from './grpc-settings.js';

type Csr = CertificateSigningRequest;

function isGrpcCsr(c: Csr): boolean {
  return c.spec?.signerName === names.grpcSigner;
}

/** The user the hub's API client is, asked once (SelfSubjectReview); the gRPC server writes CSRs as it. */
export function hubIdentity(client: KubeClient): (signal: AbortSignal) => Promise<string> {
  let cached: string | undefined;
  return async (signal) => {
    if (cached !== undefined) return cached;
    const r = await client.request<{ status?: { userInfo?: { username?: string } } }>('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: {},
    }, { signal });
    const user = r.status?.userInfo?.username;
    if (!user) throw new Error('the API server did not say who the hub is (SelfSubjectReview)');
    cached = user;
    return user;
  };
}

function renewalReview(user: string, groups: string[]): SubjectAccessReview {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: { user, groups, resourceAttributes: { group: GROUP_REGISTER, resource: 'managedclusters', subresource: 'clientcertificates', verb: 'renew' } },
  };
}

export function setupGrpcCsrApprovingController(ctx: HubContext, settings: Readonly<GrpcDriverSettings>, whoAmI: (signal: AbortSignal) => Promise<string>): Controller {
  const { client, informers, options, clock } = ctx;
  const log = ctx.log.child({ controller: 'GRPCCSRApprovingController' });
  const csrs = client.resource<Csr>(ctx.csrResource);
  const planOpts = { autoApproval: options.featureGates['ManagedClusterAutoApproval'] === true, autoApprovedUsers: settings.autoApprovedUsers };

  async function approve(csr: Csr, signal: AbortSignal): Promise<void> {
    const next = structuredClone(csr);
    const now = rfc3339(new Date(clock.now()));
    next.status = {
      ...(next.status ?? {}),
      conditions: [...(next.status?.conditions ?? []), { type: 'Approved', status: 'True', reason: reasons.autoApprovedByHub, message: APPROVAL_MESSAGE, lastUpdateTime: now, lastTransitionTime: now }],
    };
    await csrs.updateSubresource(next, 'approval', { signal });
  }

  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const csr = informers.csrs.lister.get(name);
    if (!csr || !isGrpcCsr(csr)) return {};
    const plan = planApproval(csr, planOpts);
    if (plan.kind === 'skip') return {};
    if (plan.kind === 'refuse') {
      log.info('grpc csr refused: not a valid managed cluster agent csr', { key: name, reason: plan.why });
      return {};
    }
    const hub = await whoAmI(signal);
    if (csr.spec.username !== hub) {
      log.info('grpc csr refused: not created by the hub\'s gRPC server', { key: name, creator: csr.spec.username ?? '' });
      return {};
    }
    if (plan.kind === 'renewal') {
      const subject = decodeCsrRequest(csr.spec.request);
      const user = csr.metadata.annotations?.[annotations.csrUser] ?? '';
      const groups = subject.ok ? subject.subject.organizations : [];
      const review = await client.request<SubjectAccessReview>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', renewalReview(user, groups), { signal });
      if (review.status?.allowed !== true) {
        log.info('grpc renewal csr not approved: requester may not renew', { key: name, cluster: plan.cluster });
        return {};
      }
    }
    await approve(csr, signal);
    log.info(`managed cluster grpc csr "${name}" is auto approved by hub csr controller`, { key: name, cluster: plan.cluster, kind: plan.kind });
    return {};
  }

  const controller = ctx.newController({ name: 'GRPCCSRApprovingController', reconcile, log });
  const on = (o: Csr): void => {
    if (isGrpcCsr(o)) controller.enqueue(o.metadata.name ?? '');
  };
  informers.csrs.addHandlers({ onAdd: on, onUpdate: (_o, n) => on(n) });
  return controller;
}

/** Approved, not denied or failed, unsigned: the signer's work. */
function needsSigning(c: Csr): boolean {
  if (c.status?.certificate) return false;
  const conds = c.status?.conditions ?? [];
  if (conds.some((x) => x.type === 'Denied' || x.type === 'Failed')) return false;
  return conds.some((x) => x.type === 'Approved' && x.status === 'True');
}

export function setupGrpcCsrSignController(ctx: HubContext, settings: Readonly<GrpcDriverSettings>, ca: SigningCa): Controller {
  const { client, informers, clock } = ctx;
  const log = ctx.log.child({ controller: 'CSRSignController' });
  const csrs = client.resource<Csr>(ctx.csrResource);

  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const csr = informers.csrs.lister.get(name);
    if (!csr || !isGrpcCsr(csr) || !needsSigning(csr)) return {};
    const decoded = decodeCsrRequest(csr.spec.request);
    // Only an agent's identity for the cluster the labels name, whoever approved it.
    const problem = decoded.ok ? labelledSubjectProblem(csr.metadata.labels, decoded.subject) : decoded.reason;
    if (problem !== undefined) {
      log.info('grpc csr not signed: not a managed cluster agent identity', { key: name, reason: problem });
      return {};
    }
    const nowMs = clock.now();
    const ttl = settings.signingDurationMs;
    let certPem: string;
    try {
      certPem = await signCsr({
        csrPem: Buffer.from(csr.spec.request, 'base64').toString('utf8'),
        ca,
        notBefore: new Date(nowMs - Math.min(5 * 60_000, Math.floor(ttl / 10))),
        notAfter: new Date(nowMs + ttl),
      });
    } catch (err) {
      log.info('grpc csr not signed: invalid request', { key: name, err: errorMessage(err) });
      return {};
    }
    const next = structuredClone(csr);
    next.status = { ...(next.status ?? {}), certificate: Buffer.from(certPem, 'utf8').toString('base64') };
    await csrs.updateSubresource(next, 'status', { signal });
    log.info('grpc csr signed', { key: name });
    return {};
  }

  const controller = ctx.newController({ name: 'CSRSignController', reconcile, log });
  const on = (o: Csr): void => {
    if (isGrpcCsr(o)) controller.enqueue(o.metadata.name ?? '');
  };
  informers.csrs.addHandlers({ onAdd: on, onUpdate: (_o, n) => on(n) });
  return controller;
}
