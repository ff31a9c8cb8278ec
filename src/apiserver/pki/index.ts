// Public surface of the embedded server's PKI (see pki.ts for the file layout and CA choice).
export { ensurePki } from './pki.js';
export type { Pki } from './pki.js';
export { writeKubeconfig, ensureAdminKubeconfig } from './kubeconfig.js';
