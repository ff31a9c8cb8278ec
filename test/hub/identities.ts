// The hub tests' identities live in test/helpers/identities.ts (shared with the agent tests).
export { agentGroups, agentUser, clientAs } from '../helpers/identities.js';
