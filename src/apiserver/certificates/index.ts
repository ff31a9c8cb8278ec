// Public surface of CertificateSigningRequest support: registry strategy, admission plugins
// (approve/sign permissions, system:masters restriction) and the built-in signer.
export { csrStrategy } from './csr-strategy.js';
export { csrAdmissionPlugins } from './csr-admission.js';
export { createCsrSigner } from './csr-signer.js';
