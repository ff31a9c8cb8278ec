// OCM's registration webhooks over the shared admission rules: one handler per path that OCM's
// webhook server serves (controller-runtime names them /mutate-<group>-<version>-<kind> and
// /validate-...). A handler turns one decoded AdmissionRequest into its response: a JSON Patch
// for the mutation, allowed or the refusal's Status for a validation.

import { AdmissionError, admissionErrors } from '../../api/admission/admission-error.js';
import { mutateManagedCluster } from '../../api/admission/managed-cluster-mutating.js';
import {
  CLUSTER_GROUP, validateClusterSetBinding, validateManagedCluster, type Authorize, type NamespacePhase,
} from '../../api/admission/managed-cluster-validating.js';
import { runAsync } from '../../api/admission/steps.js';
import type { KubeObject } from '../../api/meta.js';
import { decodeObject, type ReviewRequest, type ReviewResponse } from './admission-review.js';
import { jsonPatchBetween } from './json-patch.js';

export const WEBHOOK_PATHS = {
  mutateManagedCluster: '/mutate-cluster-open-cluster-management-io-v1-managedcluster',
  validateManagedCluster: '/validate-cluster-open-cluster-management-io-v1-managedcluster',
  validateClusterSetBinding: '/validate-cluster-open-cluster-management-io-v1beta2-managedclustersetbinding',
} as const;

/** What a review may ask the hub: SubjectAccessReviews and namespace phases, bound to the review's deadline. */
export interface ReviewAnswers {
  authorize: Authorize;
  namespacePhase: NamespacePhase;
}

export interface ReviewContext {
  answers: ReviewAnswers;
  nowRfc3339: string;
  /** The DefaultClusterSet feature gate. */
  defaultClusterSet: boolean;
}

export type ReviewHandler = (req: ReviewRequest, ctx: ReviewContext) => Promise<ReviewResponse>;

const allowedResponse = (uid: string): ReviewResponse => ({ uid, allowed: true, status: { metadata: {}, code: 200 } });
const refusedResponse = (uid: string, err: AdmissionError): ReviewResponse => ({ uid, allowed: false, status: err.status });

/** Decodes the objects a CREATE or UPDATE carries; a refusal when the review is for another resource or a bad object. */
function objectsOf(req: ReviewRequest, resource: string): { obj: KubeObject; old: KubeObject | undefined } | AdmissionError {
  if (req.resource.group !== CLUSTER_GROUP || req.resource.resource !== resource) {
    const got = req.resource.group ? `${req.resource.resource}.${req.resource.group}` : req.resource.resource;
    return admissionErrors.badRequest(`this webhook admits ${resource}.${CLUSTER_GROUP}, not ${JSON.stringify(got)}`);
  }
  const obj = decodeObject(req.object, 'object');
  if (typeof obj === 'string') return admissionErrors.badRequest(obj);
  if (req.operation !== 'UPDATE') return { obj, old: undefined };
  const old = decodeObject(req.oldObject, 'oldObject');
  if (typeof old === 'string') return admissionErrors.badRequest(old);
  return { obj, old };
}

/** Only writes to the main resource are admitted; deletes, connects and subresources pass untouched. */
const admitted = (req: ReviewRequest): boolean => (req.operation === 'CREATE' || req.operation === 'UPDATE') && req.subResource === '';

async function refusalOr(uid: string, run: () => ReviewResponse | Promise<ReviewResponse>): Promise<ReviewResponse> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof AdmissionError) return refusedResponse(uid, err);
    throw err;
  }
}

const mutateCluster: ReviewHandler = (req, ctx) => {
  if (!admitted(req)) return Promise.resolve({ uid: req.uid, allowed: true });
  const decoded = objectsOf(req, 'managedclusters');
  if (decoded instanceof AdmissionError) return Promise.resolve(refusedResponse(req.uid, decoded));
  return refusalOr(req.uid, () => {
    const mutated = structuredClone(decoded.obj);
    mutateManagedCluster(mutated, decoded.old, { nowRfc3339: ctx.nowRfc3339, defaultClusterSet: ctx.defaultClusterSet });
    const ops = jsonPatchBetween(req.object, mutated);
    if (ops.length === 0) return { uid: req.uid, allowed: true };
    return { uid: req.uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
  });
};

const validateCluster: ReviewHandler = async (req, ctx) => {
  if (!admitted(req)) return allowedResponse(req.uid);
  const decoded = objectsOf(req, 'managedclusters');
  if (decoded instanceof AdmissionError) return refusedResponse(req.uid, decoded);
  return refusalOr(req.uid, async () => {
    await runAsync(validateManagedCluster({ ...decoded, user: req.userInfo, ...ctx.answers }));
    return allowedResponse(req.uid);
  });
};

const validateBinding: ReviewHandler = async (req, ctx) => {
  if (!admitted(req)) return allowedResponse(req.uid);
  const decoded = objectsOf(req, 'managedclustersetbindings');
  if (decoded instanceof AdmissionError) return refusedResponse(req.uid, decoded);
  return refusalOr(req.uid, async () => {
    await runAsync(validateClusterSetBinding({ obj: decoded.obj, isCreate: req.operation === 'CREATE', user: req.userInfo, authorize: ctx.answers.authorize }));
    return allowedResponse(req.uid);
  });
};

export const REVIEW_HANDLERS: Readonly<Record<string, ReviewHandler>> = Object.freeze({
  [WEBHOOK_PATHS.mutateManagedCluster]: mutateCluster,
  [WEBHOOK_PATHS.validateManagedCluster]: validateCluster,
  [WEBHOOK_PATHS.validateClusterSetBinding]: validateBinding,
});
