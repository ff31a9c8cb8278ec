// CSR admission, kube-apiserver's CertificateApproval,
// CertificateSigning and CertificateSubjectRestriction plugins:
//   /approval update  requester needs `approve` on certificates.k8s.io `signers` <signerName> (or <domain>/*)
//   /status update    when status.certificate changes, requester needs `sign` on the same
//   create            kube-apiserver-client CSRs may not ask for O=system:masters

import type { KubeObject } from '../../api/meta.js';
import { errors } from '../http/errors.js';
import type { AdmissionContext, AdmissionPlugin, AdmissionRequest, Authorizer, UserInfo } from '../pipeline.js';
import { parseCsr } from '../../util/x509.js';
import { specOf, statusOf } from './csr-validation.js';

export const CERTIFICATES_GROUP = 'certificates.k8s.io';
export const CSR_RESOURCE = 'certificatesigningrequests';
export const KUBE_APISERVER_CLIENT_SIGNER = 'kubernetes.io/kube-apiserver-client';
const CSR_QR = { group: CERTIFICATES_GROUP, resource: CSR_RESOURCE };

/** Whether `user` holds `verb` on `signers` named signerName or `<domain>/*`. */
function authorizedForSigner(authorizer: Authorizer, user: UserInfo, verb: 'approve' | 'sign', signerName: string): boolean {
  const names = [signerName];
  const slash = signerName.indexOf('/');
  if (slash > 0) names.push(`${signerName.slice(0, slash)}/*`);
  return names.some(
    (name) =>
      authorizer.authorize({
        user,
        verb,
        resourceRequest: true,
        path: '',
        apiGroup: CERTIFICATES_GROUP,
        apiVersion: '*',
        resource: 'signers',
        subresource: '',
        namespace: '',
        name,
      }).decision === 'allow',
  );
}

const signerOf = (o: KubeObject | undefined): string => {
  const s = o ? specOf(o).signerName : undefined;
  return typeof s === 'string' ? s : '';
};

function requestOrganizations(obj: KubeObject): string[] {
  const req = specOf(obj).request;
  if (typeof req !== 'string') return [];
  try {
    return parseCsr(Buffer.from(req, 'base64').toString('utf8')).organizations;
  } catch {
    return []; // malformed requests are refused by validation with a 422
  }
}

/** 403 unless the requester may `verb` (approve, sign) CSRs of the request's signer. */
function requireSignerPermission(ctx: AdmissionContext, req: AdmissionRequest, verb: 'approve' | 'sign'): void {
  const signer = signerOf(req.oldObject ?? req.object);
  if (!authorizedForSigner(ctx.authorizer, req.user, verb, signer)) {
    throw errors.forbidden(CSR_QR, req.name, `user not permitted to ${verb} requests with signerName "${signer}"`);
  }
}

export function csrAdmissionPlugins(): AdmissionPlugin[] {
  const handles = (group: string, resource: string): boolean => group === CERTIFICATES_GROUP && resource === CSR_RESOURCE;
  return [
    {
      name: 'CertificateApproval',
      handles,
      validate(req: AdmissionRequest, ctx: AdmissionContext): void {
        if (req.operation !== 'UPDATE' || req.subresource !== 'approval') return;
        requireSignerPermission(ctx, req, 'approve');
      },
    },
    {
      name: 'CertificateSigning',
      handles,
      validate(req: AdmissionRequest, ctx: AdmissionContext): void {
        if (req.operation !== 'UPDATE' || req.subresource !== 'status' || !req.object) return;
        const before = req.oldObject ? statusOf(req.oldObject).certificate ?? '' : '';
        const after = statusOf(req.object).certificate ?? '';
        if (before === after) return;
        requireSignerPermission(ctx, req, 'sign');
      },
    },
    {
      name: 'CertificateSubjectRestriction',
      handles,
      validate(req: AdmissionRequest): void {
        if (req.operation !== 'CREATE' || !req.object) return;
        if (signerOf(req.object) !== KUBE_APISERVER_CLIENT_SIGNER) return;
        if (requestOrganizations(req.object).includes('system:masters')) {
          throw errors.forbidden(CSR_QR, req.name, `use of ${KUBE_APISERVER_CLIENT_SIGNER} signer with system:masters group is not allowed`);
        }
      },
    },
  ];
}
