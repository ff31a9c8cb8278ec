// CSRApprovingController: auto-approves agent certificate renewals (after a
// SubjectAccessReview for `renew`) and, under ManagedClusterAutoApproval, CSRs of listed bootstrap users
// once their cluster's RBAC is written (see bootstrapApprovalTiming): changes to the cluster and to
// its RBAC, and the acceptance's confirmation that it wrote that RBAC, re-queue its CSRs.

import type { ManagedCluster } from '../../api/cluster.js';
import { rfc3339 } from '../../api/conditions.js';
import { clusterRoleName, reasons, names, GROUP_REGISTER, labels, registrationRoleBindingName, workRoleBindingName } from '../../api/constants.js';
import type { KubeObject } from '../../api/meta.js';
import type { CertificateSigningRequest, SubjectAccessReview } from '../../api/core.js';
import type { Controller, ReconcileResult } from '../../client/types.js';
import type { HubContext } from '../common/context.js';
import { APPROVAL_MESSAGE, bootstrapApprovalTiming, planApproval } from './csr-approval-decision.js';

const CONTROLLER_NAME = 'CSRApprovingController';
/** Longest a bootstrap CSR waits for its cluster's acceptance before it is approved anyway. */
const ACCEPTANCE_WAIT_MS = 10_000;

function renewalReview(csr: CertificateSigningRequest): SubjectAccessReview {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    metadata: {},
    spec: {
      ...(csr.spec.username !== undefined ? { user: csr.spec.username } : {}),
      ...(csr.spec.uid !== undefined ? { uid: csr.spec.uid } : {}),
      ...(csr.spec.groups !== undefined ? { groups: csr.spec.groups } : {}),
      ...(csr.spec.extra !== undefined ? { extra: csr.spec.extra } : {}),
      resourceAttributes: { group: GROUP_REGISTER, resource: 'managedclusters', subresource: 'clientcertificates', verb: 'renew' },
    },
  };
}

export function setupCsrApprovingController(ctx: HubContext): Controller {
  const { client, informers, options, clock } = ctx;
  const log = ctx.log.child({ controller: CONTROLLER_NAME });
  const csrs = client.resource<CertificateSigningRequest>(ctx.csrResource);
  const planOpts = {
    autoApproval: options.featureGates['ManagedClusterAutoApproval'] === true,
    autoApprovedUsers: options.autoApprovedCsrUsers,
  };

  async function approve(csr: CertificateSigningRequest, signal: AbortSignal): Promise<void> {
    const next = structuredClone(csr);
    const now = rfc3339(new Date(clock.now()));
    next.status = {
      ...(next.status ?? {}),
      conditions: [
        ...(next.status?.conditions ?? []),
        { type: 'Approved', status: 'True', reason: reasons.autoApprovedByHub, message: APPROVAL_MESSAGE, lastUpdateTime: now, lastTransitionTime: now },
      ],
    };
    await csrs.updateSubresource(next, 'approval', { signal });
  }

  /**
   * The cluster's role and the bindings its agent's main phase needs exist: the acceptance's own
   * writes say so, or the hub's caches have them.
   */
  function rbacWritten(cluster: string): boolean {
    if (ctx.rbacWritten.confirmed(cluster)) return true;
    return (
      informers.clusterRoles.lister.get(clusterRoleName(cluster)) !== undefined &&
      informers.clusterRoleBindings.lister.get(clusterRoleName(cluster)) !== undefined &&
      informers.roleBindings.lister.get(registrationRoleBindingName(cluster), cluster) !== undefined &&
      informers.roleBindings.lister.get(workRoleBindingName(cluster), cluster) !== undefined
    );
  }

  async function reconcile(name: string, signal: AbortSignal): Promise<ReconcileResult> {
    const csr = informers.csrs.lister.get(name);
    if (!csr) return {};
    const plan = planApproval(csr, planOpts);
    if (plan.kind === 'refuse') {
      log.info('csr refused: not a valid managed cluster agent csr', { key: name, reason: plan.why });
      return {};
    }
    if (plan.kind === 'skip') {
      log.debug('csr not auto-approved', { key: name, why: plan.why });
      return {};
    }
    if (plan.kind === 'renewal') {
      const review = await client.request<SubjectAccessReview>('POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', renewalReview(csr), { signal });
      if (review.status?.allowed !== true) {
        log.info('renewal csr not approved: requester may not renew', { key: name, cluster: plan.cluster });
        return {};
      }
      await approve(csr, signal);
      log.info(`managed cluster csr "${name}" is auto approved by hub csr controller`, { key: name, reason: 'ManagedClusterCSRAutoApproved' });
      return {};
    }
    const created = Date.parse(csr.metadata.creationTimestamp ?? '');
    const timing = bootstrapApprovalTiming(informers.clusters.lister.get(plan.cluster), rbacWritten(plan.cluster), Number.isNaN(created) ? clock.now() : created, clock.now(), ACCEPTANCE_WAIT_MS);
    if (!timing.approve) {
      log.debug('bootstrap csr waits for its cluster to be accepted', { key: name, cluster: plan.cluster });
      return { requeueAfterMs: timing.recheckInMs };
    }
    await approve(csr, signal);
    log.info(`managed cluster "${plan.cluster}" is auto approved.`, { key: name, reason: 'ManagedClusterAutoApproved' });
    return {};
  }

  const controller = ctx.newController({ name: CONTROLLER_NAME, reconcile, log });
  const onCsr = (o: CertificateSigningRequest): void => {
    if (o.spec?.signerName === names.kubeApiserverClientSigner) controller.enqueue(o.metadata.name ?? '');
  };
  informers.csrs.addHandlers({ onAdd: onCsr, onUpdate: (_o, n) => onCsr(n) });
  if (planOpts.autoApproval) {
    // A change to a cluster (its acceptance) or to its RBAC re-queues the cluster's pending CSRs.
    const requeueCluster = (cluster: string | undefined): void => {
      if (!cluster) return;
      for (const c of informers.csrs.lister.list({ labelSelector: `${labels.clusterName}=${cluster}` })) onCsr(c);
    };
    const onCluster = (mc: ManagedCluster): void => requeueCluster(mc.metadata.name);
    informers.clusters.addHandlers({ onAdd: onCluster, onUpdate: (_o, n) => onCluster(n) });
    const onRbac = (o: KubeObject): void => requeueCluster(o.metadata.labels?.[labels.clusterName]);
    for (const inf of [informers.clusterRoles, informers.clusterRoleBindings, informers.roleBindings]) inf.addHandlers({ onAdd: onRbac });
    ctx.rbacWritten.onConfirm(requeueCluster);
  }
  return controller;
}
