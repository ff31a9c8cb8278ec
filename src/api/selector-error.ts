// The error of a malformed label or field selector.

/** A malformed selector; the HTTP layer answers it with 400 BadRequest and this message. */
export class SelectorParseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SelectorParseError';
  }
}
