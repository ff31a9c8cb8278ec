// Static bearer tokens, the `--token-auth-file` CSV of kube-apiserver:
// `token,username,uid[,"group1,group2"]`, one user per line. Parsing is pure; error messages carry
// the line number, never the token.

import { readFileSync } from 'node:fs';
import { timingSafeEqual, createHash } from 'node:crypto';
import { errorMessage } from '../../util/errors.js';
import type { UserInfo } from '../pipeline.js';

export interface StaticToken {
  token: string;
  user: UserInfo;
}

export class TokenFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenFileError';
  }
}

/** Splits one CSV record (RFC 4180 quoting: `"a,b"`, `""` for a quote). */
export function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c === '"') {
      quoted = true;
    } else if (c === ',') {
      out.push(cur);
      cur = '';
    } else {
      cur += c;
    }
  }
  if (quoted) throw new TokenFileError('unterminated quoted field');
  out.push(cur);
  return out;
}

/** Parses the token file text. Blank lines and lines starting with `#` are skipped. */
export function parseTokenCsv(text: string): StaticToken[] {
  const out: StaticToken[] = [];
  const seen = new Set<string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === '' || raw.startsWith('#')) continue;
    let fields: string[];
    try {
      fields = splitCsvLine(raw).map((f) => f.trim());
    } catch (e) {
      throw new TokenFileError(`token file line ${i + 1}: ${errorMessage(e)}`);
    }
    if (fields.length < 3) throw new TokenFileError(`token file line ${i + 1}: expected at least 3 columns (token,user,uid), got ${fields.length}`);
    const [token, username, uid] = fields as [string, string, string];
    if (!token) throw new TokenFileError(`token file line ${i + 1}: empty token`);
    if (!username) throw new TokenFileError(`token file line ${i + 1}: empty user name`);
    if (seen.has(token)) throw new TokenFileError(`token file line ${i + 1}: duplicate token`);
    seen.add(token);
    const groups = fields.length >= 4 && fields[3] ? fields[3].split(',').map((g) => g.trim()).filter((g) => g !== '') : [];
    out.push({ token, user: { username, ...(uid ? { uid } : {}), groups } });
  }
  return out;
}

/** Reads and parses a token file (synchronously; called once at start-up). */
export function loadTokenFile(path: string): StaticToken[] {
  return parseTokenCsv(readFileSync(path, 'utf8'));
}

/** Constant-time lookup table: tokens are compared by SHA-256 digest with timingSafeEqual. */
export class StaticTokenTable {
  readonly #byDigest = new Map<string, { digest: Buffer; user: UserInfo }>();

  constructor(tokens: readonly StaticToken[]) {
    for (const t of tokens) {
      const digest = createHash('sha256').update(t.token).digest();
      this.#byDigest.set(digest.toString('hex'), { digest, user: t.user });
    }
  }

  get size(): number {
    return this.#byDigest.size;
  }

  lookup(token: string): UserInfo | undefined {
    const digest = createHash('sha256').update(token).digest();
    const hit = this.#byDigest.get(digest.toString('hex'));
    if (!hit || !timingSafeEqual(hit.digest, digest)) return undefined;
    return { ...hit.user, groups: [...hit.user.groups] };
  }
}
