// Public surface of authentication (§14) and authorization (§15) for the embedded server.
export { createAuthenticator, bearerToken, AUTHENTICATED_GROUP, UNAUTHENTICATED_GROUP, ANONYMOUS_USER } from './authenticator.js';
export type { AuthenticatorOptions } from './authenticator.js';
export { createAuthorizer, MASTERS_GROUP } from './rbac-authorizer.js';
export type { RbacAuthorizer, AuthorizerOptions } from './rbac-authorizer.js';
export { forbiddenError, forbiddenMessage } from './forbidden.js';
export { handleAccessReview, handleSelfSubjectRulesReview, accessReviewResources, reviewAttributes } from './access-review.js';
export type { AccessReviewKind } from './access-review.js';
export { bootstrapPolicyObjects } from './bootstrap-policy.js';
export { createServiceAccountTokens, SERVICE_ACCOUNTS_GROUP } from './service-account-token.js';
export type { ServiceAccountTokens, ServiceAccountTokenVerifier, ServiceAccountTokenOptions } from './service-account-token.js';
export { parseTokenCsv, loadTokenFile, TokenFileError } from './token-file.js';
export type { StaticToken } from './token-file.js';
export { parseBootstrapToken, checkBootstrapToken, BOOTSTRAPPERS_GROUP, BOOTSTRAP_TOKEN_SECRET_TYPE } from './bootstrap-token.js';
export { ruleAllows, serviceAccountUsername } from './rbac-rules.js';
export type { PolicyRule, Subject, RoleRef } from './rbac-rules.js';
export { rbacStrategyOverrides } from './rbac-strategy.js';
export { rbacEscalationAdmission } from './rbac-escalation.js';
