// A start failure that running the start sequence again cannot fix: the options themselves are wrong.
// The agent exits with code 1, as OCM's agent does after "Error during Validating".

export class AgentConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AgentConfigError';
  }
}
