// Errors of the SQLite store's own lifecycle (the data errors are in the contract, types.ts).

/** Another process (or another store in this process) owns the database file. */
export class StoreLockedError extends Error {
  constructor(readonly path: string, readonly ownerPid: number | undefined, options?: { cause?: unknown }) {
    super(
      `storage ${path} is already in use` +
        (ownerPid !== undefined ? ` by pid ${ownerPid}` : ' by another process') +
        '; only one server may own a database file',
      options,
    );
    this.name = 'StoreLockedError';
  }
}

/** The store was used after close(). */
export class StoreClosedError extends Error {
  constructor() {
    super('storage is closed');
    this.name = 'StoreClosedError';
  }
}
