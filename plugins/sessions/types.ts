/**
 * The `sessions` service (declared into core/services.ts): server-side sessions in the memory
 * store. Access tokens name their session (`sid`), so ending a session ends its tokens on the next
 * request (stateful tokens). Also owns the app session cookies.
 */
import type { RequestContext } from '../../core/context.js';

export interface SessionRecord {
  id: string;
  userId: string;
  roles: string[];
  scopes: string[];
  /** Authentication methods references (RFC 8176), e.g. `pwd`, `otp`, `mfa`. */
  amr: string[];
  /** Unix seconds of the user's authentication (OIDC `auth_time`). */
  authTime: number;
  /** Unix milliseconds. */
  createdAt: number;
  expiresAt: number;
  clientId?: string;
  /** Free-form data other plugins attach (for example an organization or SSO connection). */
  data?: Record<string, string>;
  /**
   * The first session of the chain this one descends from by rotation (absent: the session's own
   * id). A refresh token belongs to this family, not to one id: `session` rotates the session a
   * refresh token was issued for, and the reuse of a spent token must still end its successor
   * (RFC 9700 §4.14.2), not only the rotated-away id.
   */
  family?: string;
  /**
   * Not stored: set on a session reached through the cookie of the session it replaced, within
   * the rotation grace (service.ts ROTATION_GRACE_MS); names that older session.
   */
  successorOf?: string;
  /**
   * The family of the browser session whose approval issued this one (an authorization code's
   * redemption, an implicit grant): ending that browser session ends this one and its tokens
   * (access tokens are stateful).
   */
  issuedFrom?: string;
}

export interface NewSession {
  userId: string;
  roles: string[];
  scopes: string[];
  amr: string[];
  authTime?: number;
  clientId?: string;
  data?: Record<string, string>;
  /** Default: 24 hours. */
  ttlMs?: number;
  /**
   * When the caller read the user this session is for (Date.now()). A revocation of every
   * session of the user after that moment (revokeAll: admin revoke, deactivation, a password
   * change) ends this one too, though it is stored later: a login whose hash was running when
   * the admin revoked access must not come out of it with a live session.
   */
  readAt?: number;
  /** See SessionRecord.issuedFrom. */
  issuedFrom?: string;
}

export interface SessionsService {
  /** Session lifetime in milliseconds (24 hours). */
  readonly ttlMs: number;
  create(input: NewSession): Promise<SessionRecord>;
  get(userId: string, sessionId: string): Promise<SessionRecord | null>;
  /** Keeps the session alive until at least `expiresAt` (refresh tokens extend it). */
  extend(session: SessionRecord, expiresAt: number): Promise<SessionRecord | null>;
  /**
   * Replaces the session by a new id with the same authentication facts; the old id dies (its
   * cookie stands for the new one for a short grace, its access tokens end). Concurrent rotations
   * of one session all get the same new one; null when the session ended meanwhile.
   */
  rotate(
    session: SessionRecord,
    changes?: Partial<Pick<SessionRecord, 'roles' | 'scopes'>>,
  ): Promise<SessionRecord | null>;
  /** Ends the session, and every session issued from its family (SessionRecord.issuedFrom). */
  revoke(userId: string, sessionId: string): Promise<void>;
  /**
   * Ends every live session of the user descending from `family` (see SessionRecord.family), and
   * every session issued from it.
   */
  revokeFamily(userId: string, family: string): Promise<number>;
  /** Ends every session of a user (logout everywhere, admin revoke, deactivation). */
  revokeAll(userId: string): Promise<number>;
  /**
   * Ends every session of the user but `session`, which keeps its id, so the tokens and cookies
   * naming it go on working (a password change made with a token). Ended as revokeAll ends them,
   * sign-ins in flight included. Null when `session` itself had ended already (a logout or a
   * revoke landed first): then no session of the user is left either.
   */
  keepOnly(session: SessionRecord): Promise<SessionRecord | null>;
  /** The opaque, encrypted cookie value naming a session. */
  cookieValue(session: SessionRecord): string;
  /** The session a cookie value names, when the cookie is genuine and the session alive. */
  fromCookie(value: string | undefined): Promise<SessionRecord | null>;
  /** Sets `cookie_session` and `cookie_session_domain` (HTTP-only, flags from the config). */
  setCookies(ctx: RequestContext, session: SessionRecord): void;
  clearCookies(ctx: RequestContext): void;
  /** The session of the request's cookies, if any. */
  fromRequest(ctx: RequestContext): Promise<SessionRecord | null>;
  /** Every live session the request's two cookies name (they differ when set by different sign-ins). */
  cookieSessions(ctx: RequestContext): Promise<SessionRecord[]>;
}

declare module '../../core/services.js' {
  interface Services {
    sessions: SessionsService;
  }
}
