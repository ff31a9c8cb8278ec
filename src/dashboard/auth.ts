// Who is asking, and what they may load. The dashboard serves nothing anonymously but its login
// page: a request is someone's when it carries a session cookie (made when a bearer token was
// pasted on the login page and the API server accepted it) or a client certificate that the hub's
// client CA verified. Every API call then runs as that user (./user-client.ts). Pure.

import { randomBytes } from 'node:crypto';

export type Identity =
  /** A bearer token, forwarded as it is on every API call. */
  | { kind: 'token'; user: string; token: string }
  /** A verified client certificate: the dashboard impersonates its subject. */
  | { kind: 'certificate'; user: string; groups: string[] };

export const SESSION_COOKIE = 'ocm_dashboard_session';

/** Cookie header → name → value (the first of duplicates wins, as browsers send the most specific first). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    if (!out.has(name)) out.set(name, part.slice(eq + 1).trim());
  }
  return out;
}

export function sessionCookie(id: string, maxAgeSeconds: number): string {
  // Secure + HttpOnly: never readable by scripts; Strict: never sent on another site's request.
  return `${SESSION_COOKIE}=${id}; Path=/; Secure; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}`;
}

/** In-memory sessions: random ids, each expiring `ttlMs` after the login. */
export class SessionStore {
  private readonly sessions = new Map<string, { identity: Identity; expiresAt: number }>();
  constructor(private readonly ttlMs: number, private readonly now: () => number) {}

  create(identity: Identity): string {
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, { identity, expiresAt: this.now() + this.ttlMs });
    return id;
  }

  get(id: string | undefined): Identity | undefined {
    if (id === undefined) return undefined;
    const s = this.sessions.get(id);
    if (!s) return undefined;
    if (s.expiresAt <= this.now()) {
      this.sessions.delete(id);
      return undefined;
    }
    return s.identity;
  }

  delete(id: string | undefined): void {
    if (id !== undefined) this.sessions.delete(id);
  }
}

/** What the TLS layer says of the client's certificate. */
export interface PeerCertificate {
  /** The chain verified against the client CA. */
  authorized: boolean;
  commonName?: string;
  organizations: string[];
}

/**
 * The identity of a request: a verified client certificate first (it cannot be stolen by a script),
 * else the session its cookie names. A certificate that did not verify counts for nothing.
 */
export function identify(req: { cookie: string | undefined; peer: PeerCertificate | undefined }, sessions: SessionStore): Identity | undefined {
  if (req.peer?.authorized && req.peer.commonName) return { kind: 'certificate', user: req.peer.commonName, groups: [...req.peer.organizations] };
  return sessions.get(parseCookies(req.cookie).get(SESSION_COOKIE));
}

export type RouteAccess = 'public' | 'page' | 'api';

/** Only the login page (and its form post) is public; pages redirect to it, the rest answers 401. */
export function routeAccess(method: string, path: string): RouteAccess {
  if (path === '/login' && (method === 'GET' || method === 'POST')) return 'public';
  if (method === 'GET' && (path === '/' || path === '/index.html')) return 'page';
  return 'api';
}

/**
 * A state-changing request must come from the dashboard's own page: a JSON body (a form on another
 * site cannot send one without a CORS preflight, which is never granted) and, when the browser
 * names its origin, the dashboard's origin.
 */
export function isSameOriginWrite(headers: { origin?: string | undefined; host?: string | undefined; contentType?: string | undefined }): boolean {
  if (!(headers.contentType ?? '').toLowerCase().startsWith('application/json')) return false;
  if (headers.origin === undefined) return true;
  return headers.origin === `https://${headers.host ?? ''}`;
}

/** The user a bearer token names, for display: a service account token's subject, else a neutral name. */
export function tokenDisplayName(token: string): string {
  const parts = token.split('.');
  if (parts.length === 3) {
    try {
      const claims = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as { sub?: unknown };
      if (typeof claims.sub === 'string' && claims.sub !== '') return claims.sub;
    } catch {
      // Not a JWT: fall through.
    }
  }
  return 'token user';
}
