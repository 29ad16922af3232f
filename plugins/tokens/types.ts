/**
 * The `tokens` service (declared into core/services.ts): JWT access, ID and refresh tokens signed
 * with the `keys` service, their verification (stateful: the session must still exist), refresh
 * rotation with reuse detection, and the 'session' authenticator.
 */
import type { RequestContext } from '../../core/context.js';
import type { SessionRecord } from '../sessions/index.js';
import type { UserRecord } from '../users/index.js';

export type TokenType = 'access_token' | 'id_token' | 'refresh_token';

export interface IssueRequest {
  user: UserRecord;
  session: SessionRecord;
  /** Granted scopes; a refresh token is issued only with `offline_access`. */
  scopes: string[];
  roles: string[];
  /** The OAuth client; default `--client-id`. The ID token's `aud`. */
  clientId?: string;
  /** The access token's `aud` (RFC 8707 resource); default the client id. */
  audience?: string | string[];
  nonce?: string;
  /** The authorization code issued alongside (OIDC `c_hash`). */
  code?: string;
  /** Extra access-token claims (for example `act` for delegation); reserved claims are refused. */
  extraClaims?: Record<string, unknown>;
  /** Access/ID token lifetime override in seconds (delegated tokens: 300). */
  accessTtlSeconds?: number;
  /** Override the refresh decision (default: `offline_access` in scopes). */
  refresh?: boolean;
  /**
   * The scopes of the refresh token's grant when they differ from `scopes` (RFC 6749 §6: a refresh
   * that narrows the access token's scope leaves the new refresh token's scope as it was).
   */
  refreshScopes?: string[];
  /**
   * OIDC Core §5.4: put only the profile claims the scopes release into the ID token (`profile`,
   * `email`, `phone`). Default false: every profile claim (the first-party login flows).
   */
  idTokenClaimsByScope?: boolean;
  /** Keep the refresh token in this family (rotation). */
  refreshFamily?: string;
}

export interface IssuedTokens {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  /** The Unix timestamp at which the access token expires. */
  expires_in: number;
  /** Lifetime in seconds (for RFC 6749 responses that want it). */
  lifetime: number;
  scope: string;
}

export interface VerifiedToken {
  claims: Record<string, unknown>;
  userId: string;
  session: SessionRecord;
}

export interface VerifyOptions {
  /** Required audience (overrides `audiences`). */
  audience?: string;
  /**
   * Which audiences pass when no `audience` is named:
   * - `own` (default): the token is a credential for Latchkey's own API, so its audience is the
   *   client it was issued to, `--url` or its origin; a token bound by RFC 8707 `resource` to
   *   another API, or to `{url}/mcp`, is refused (RFC 9700 §2.3);
   * - `not-mcp`: any but `{url}/mcp` (validate_jwt_token: a resource server asking about a token
   *   bound to it);
   * - `any`: introspection and revocation, which concern the token whatever it is for.
   */
  audiences?: 'own' | 'not-mcp' | 'any';
}

export interface RefreshResult {
  user: UserRecord;
  session: SessionRecord;
  tokens: IssuedTokens;
}

export interface TokensService {
  readonly issuer: string;
  readonly accessTtlSeconds: number;
  readonly refreshTtlSeconds: number;
  /** The claim that carries roles (`--jwt-role-claim`, default `role`). */
  readonly roleClaim: string;
  issue(req: IssueRequest): Promise<IssuedTokens>;
  /**
   * Signs arbitrary claims with the current key (`iss`, `iat` and `exp` added); `expiresAt` is the
   * `exp` signed (what a token response's `expires_in` names on POST /oauth/token).
   */
  sign(claims: Record<string, unknown>, ttlSeconds: number): Promise<{ token: string; expiresAt: number }>;
  /** Signature, issuer, expiry, token type, and the session behind it; null when any fails. */
  verifyAccessToken(token: string, options?: VerifyOptions): Promise<VerifiedToken | null>;
  /** Like verifyAccessToken for any token type (refresh: must be unspent). */
  validate(token: string, type: TokenType): Promise<VerifiedToken | null>;
  /** An ID token of ours, expired or not, for logout's `id_token_hint`: its claims, or null. */
  verifyIdTokenHint(token: string): Promise<Record<string, unknown> | null>;
  /** Single use: a spent token's reuse revokes its family (the session) and fails. */
  refresh(refreshToken: string, options?: { clientId?: string; scopes?: string[] }): Promise<RefreshResult>;
  /** The session the 'session' authenticator recognised this request by, if it ran. */
  authenticatedSession(ctx: RequestContext): SessionRecord | undefined;
  /** Removes every refresh record of a user (subscribed to the `user.deleted` hook). */
  forgetUser(userId: string): Promise<void>;
  /** Revokes a refresh token (and its family); `invalid_argument`-free: unknown tokens are a no-op false. */
  revokeRefreshToken(refreshToken: string): Promise<boolean>;
  /**
   * The verified-token cache since start: checks answered from it (`hits`), checks that verified
   * a signature (`misses`, valid or not), and tokens it holds (`kept`). For diagnostics: the
   * accounts bench reads it to show its cold rows were misses, not to assume it.
   */
  verifiedCacheStats(): VerifiedCacheStats;
}

/** What TokensService.verifiedCacheStats answers. */
export interface VerifiedCacheStats {
  hits: number;
  misses: number;
  kept: number;
}

declare module '../../core/services.js' {
  interface Services {
    tokens: TokensService;
  }
}
