// Public surface of authentication and authorization (RBAC) for the embedded server.
export { createAuthenticator } from './authenticator.js';
export { createAuthorizer } from './rbac-authorizer.js';
export { accessReviewResources } from './access-review.js';
export { bootstrapPolicyObjects } from './bootstrap-policy.js';
export { createServiceAccountTokens } from './service-account-token.js';
export { rbacStrategyOverrides } from './rbac-strategy.js';
export { rbacEscalationAdmission } from './rbac-escalation.js';
