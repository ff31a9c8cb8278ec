// Which keys a list/watch "prefix" addresses. Pure functions, shared by the SQL queries (as a
// half-open byte range, so an index on `key` serves the scan) and the in-memory watch fan-out.
//
// Rules (keys look like `/<group>/<resource>/<namespace>/<name>`):
// - a prefix ending in `/` addresses every key that starts with it (`/core/secrets/` = all
//   namespaces, `/core/secrets/ns1/` = one namespace);
// - any other non-empty string is a full key and addresses that single object only (so watching
//   `/core/secrets/ns1/a` never sees `/core/secrets/ns1/ab`);
// - the empty string addresses every key.

export interface KeyRange {
  /** Inclusive lower bound. */
  lo: string;
  /** Exclusive upper bound. */
  hi: string;
}

/** Larger (in both UTF-16 and UTF-8 order) than any key made of characters below U+10FFFF. */
const TOP = '\u{10FFFF}';

export function keyRange(prefix: string): KeyRange {
  if (prefix === '') return { lo: '', hi: TOP };
  if (prefix.endsWith('/')) return { lo: prefix, hi: prefix.slice(0, -1) + '0' }; // '0' = '/' + 1
  // Keys never contain NUL, so [key, key + NUL) holds exactly `key`.
  return { lo: prefix, hi: prefix + '\u0000' };
}

export function keyMatcher(prefix: string): (key: string) => boolean {
  if (prefix === '') return () => true;
  if (prefix.endsWith('/')) return (key) => key.startsWith(prefix);
  return (key) => key === prefix;
}
