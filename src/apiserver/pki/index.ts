// Public surface of the embedded server's PKI (see pki.ts for the file layout and CA choice).
export { ensurePki, capAt, writeSecretFile, BACKDATE_MS } from './pki.js';
export type { Pki, PkiOptions, IssueClientCertificateOptions, IssuedCertificate } from './pki.js';
export { writeKubeconfig, buildKubeconfig, ensureAdminKubeconfig, ADMIN_COMMON_NAME, ADMIN_GROUP } from './kubeconfig.js';
export type { KubeconfigOptions, KubeconfigUser, AdminKubeconfigOptions } from './kubeconfig.js';
