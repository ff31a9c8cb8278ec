// Public surface of CertificateSigningRequest support (§13): registry strategy, admission plugins
// (approve/sign permissions, system:masters restriction) and the built-in signer.
export { csrStrategy, populateConditionTimestamps } from './csr-strategy.js';
export { csrAdmissionPlugins, authorizedForSigner, KUBE_APISERVER_CLIENT_SIGNER, CERTIFICATES_GROUP, CSR_RESOURCE } from './csr-admission.js';
export { createCsrSigner } from './csr-signer.js';
export type { CsrSignerOptions } from './csr-signer.js';
export { decideSigning, needsSigning, signingTtlMs, validityWindow } from './signer-policy.js';
export { validateCsrSpec, validateConditions, validateConditionTransition, validateCertificateField, KNOWN_USAGES } from './csr-validation.js';
