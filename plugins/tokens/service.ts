/**
 * Token issuance and verification with jose (RFC 7519, RFC 9068 access tokens, OIDC Core §2 ID
 * tokens). Access and ID tokens live 30 minutes, refresh tokens 30 days. Every token names its
 * session (`sid`), and verification fails once the session is gone: logout, revoke, deactivation
 * and admin revoke take effect on the next request.
 *
 * Refresh tokens are JWTs too (so `validate_jwt_token` can check them) whose `jti` is recorded in
 * the memory store only as a SHA-256 digest. They are single use: each use consumes the record
 * atomically and leaves a "spent" marker; presenting a spent token again revokes its family, which
 * is its session (RFC 9700 §4.14.2, refresh token rotation with reuse detection). A rotation stores
 * the successor before it consumes the presented token, and a repeat by the same client within
 * `--refresh-reuse-grace-seconds` of the rotation, while the successor is unused, rotates anew
 * instead of ending the family (the answer of the first rotation was lost).
 */
import { createHash } from 'node:crypto';
import { CompactSign, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { Config } from '../../core/config.js';
import { ServiceError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import type { MemoryStore } from '../../core/memory-store.js';
import { createRandomPool } from '../../core/random-pool.js';
import type { KeysService } from '../keys/index.js';
import type { SessionRecord, SessionsService } from '../sessions/index.js';
import type { UserRecord, UsersService } from '../users/index.js';
import { compileCustomizer, RESERVED_CLAIMS } from './custom-claims.js';
import { keyObjectOf, verifierOf, type TokenVerifier } from './key-verifier.js';
import { authenticatedSessionOf } from './authenticator.js';
import { SecondSighting } from './second-sighting.js';
import { VerifiedTokens } from './verified-tokens.js';
import type {
  IssueRequest,
  IssuedTokens,
  RefreshResult,
  TokenType,
  TokensService,
  VerifiedToken,
  VerifyOptions,
} from './types.js';

/** A refresh asked for a scope its grant does not hold (the token endpoint's `invalid_scope`, RFC 6749 §5.2). */
export class ScopeExceedsGrantError extends ServiceError {
  constructor() {
    super('invalid_argument', 'requested scope exceeds the original grant');
  }
}

export const ACCESS_TTL_SECONDS = 30 * 60;
export const REFRESH_TTL_SECONDS = 30 * 24 * 60 * 60;

interface RefreshRecord {
  sid: string;
  /** The session family (SessionRecord.family): a reuse ends it, wherever rotation has moved it. Absent in records written before it was kept: `sid`. */
  family?: string;
  userId: string;
  clientId: string;
  scopes: string[];
  roles: string[];
  audience?: string | string[];
  /** The ID tokens of this family release profile claims by scope. */
  scopedClaims?: boolean;
}

const familyOf = (record: RefreshRecord) => record.family ?? record.sid;

/**
 * What a spent refresh token leaves behind: its family, and when it was spent by a rotation, the
 * successor that rotation stored, when, and for which client (the reuse grace). Written before the
 * token is spent. Older marks are the family id alone.
 */
interface SpentMark {
  family: string;
  successor?: string;
  rotatedAt?: number;
  clientId?: string;
}
const readMark = (raw: string): SpentMark => (raw.startsWith('{') ? (JSON.parse(raw) as SpentMark) : { family: raw });

const digest = (jti: string) => createHash('sha256').update(jti).digest('base64url');
// Keyed under the user, so deleting a user removes their refresh records with one deletePrefix.
const refreshKey = (userId: string, jti: string) => `refresh:${userId}:${digest(jti)}`;
const spentKey = (userId: string, jti: string) => `refresh-spent:${userId}:${digest(jti)}`;

/** at_hash / c_hash: left half of the hash named by the algorithm's size (OIDC Core §3.1.3.6). */
function halfHash(value: string, alg: string): string {
  const bits = alg.endsWith('512') ? 'sha512' : alg.endsWith('384') ? 'sha384' : 'sha256';
  const h = createHash(bits).update(value).digest();
  return h.subarray(0, h.length / 2).toString('base64url');
}

/** The MCP resource audience `{scheme+host of --url}/mcp`. */
/** Latchkey's own resource identifiers besides `--url` itself: its origin, with and without the slash. */
function baseResources(url: string): string[] {
  const u = new URL(url);
  return [`${u.protocol}//${u.host}`, `${u.protocol}//${u.host}/`];
}

export function mcpAudience(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}/mcp`;
}

/**
 * The user's profile claims, absent ones left out. Built by adding only present values (same
 * claims, same order as before): deleting keys from an object literal turns it into a slow
 * dictionary object, which every ID token then spread and serialized.
 */
export function profileClaims(user: UserRecord): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  const put = (name: string, value: unknown) => {
    if (value !== null && value !== undefined) c[name] = value;
  };
  put('email', user.email);
  c.email_verified = user.emailVerifiedAt !== null;
  put('phone_number', user.phoneNumber);
  c.phone_number_verified = user.phoneNumberVerifiedAt !== null;
  put('given_name', user.givenName);
  put('family_name', user.familyName);
  put('middle_name', user.middleName);
  put('nickname', user.nickname);
  put('preferred_username', user.preferredUsername ?? user.email ?? user.phoneNumber);
  put('gender', user.gender);
  put('birthdate', user.birthdate);
  put('picture', user.picture);
  c.signup_methods = user.signupMethods.join(',');
  put('created_at', user.createdAt);
  put('updated_at', user.updatedAt);
  return c;
}

/** Profile claims released by scope (OIDC Core §5.4), for third-party relying parties. */
const SCOPE_CLAIMS: Record<string, string[]> = {
  profile: [
    'given_name',
    'family_name',
    'middle_name',
    'nickname',
    'preferred_username',
    'gender',
    'birthdate',
    'picture',
    'updated_at',
  ],
  email: ['email', 'email_verified'],
  phone: ['phone_number', 'phone_number_verified'],
};

function scopedProfileClaims(user: UserRecord, scopes: readonly string[]): Record<string, unknown> {
  const all = profileClaims(user);
  const out: Record<string, unknown> = {};
  for (const s of scopes) for (const k of SCOPE_CLAIMS[s] ?? []) if (all[k] !== undefined) out[k] = all[k];
  return out;
}

export interface TokensDeps {
  config: Config;
  memory: MemoryStore;
  keys: KeysService;
  sessions: SessionsService;
  users: UsersService;
  logger: Logger;
}

/**
 * The longest token verified, in characters (also the validate_jwt_token `token` field's bound).
 * Anything longer is refused before any work; so nothing longer may be issued either.
 */
export const MAX_TOKEN_LENGTH = 8192;

/** At most this many verified tokens are remembered (see `verified` below). */
export const VERIFIED_CACHE_MAX = 20_000;

/**
 * Signs a complete payload (iss, iat and exp already set) with the current key, through jose's
 * CompactSign: the claims are assembled here, so SignJWT's builder has nothing to add. The key
 * object is made once, and the header is the same for every token.
 */
function signerFor(k: KeysService['current']): (payload: Record<string, unknown>) => Promise<string> {
  const key = keyObjectOf(k.signKey);
  const header = { alg: k.alg, kid: k.kid, typ: 'JWT' };
  const encoder = new TextEncoder();
  return (payload) => new CompactSign(encoder.encode(JSON.stringify(payload))).setProtectedHeader(header).sign(key);
}

export async function createTokensService({
  config,
  memory,
  keys,
  sessions,
  users,
  logger,
}: TokensDeps): Promise<TokensService> {
  const issuer = config.string('url') ?? '';
  const clientIdDefault = config.string('client-id') ?? '';
  const roleClaim = config.string('jwt-role-claim', 'role') || 'role';
  const mcp = issuer ? mcpAudience(issuer) : '';
  const ownResources = issuer ? new Set([issuer, ...baseResources(issuer)]) : new Set<string>();
  /**
   * Whether a token is for Latchkey's own API (/v1, /graphql, gRPC, /userinfo): its audience is
   * the client it was issued to (no resource was asked for) or Latchkey itself. A token bound by
   * RFC 8707 `resource` to another API is for that API only (RFC 9700 §2.3: a resource server
   * that received it must not be able to replay it here), and an MCP-audience token is for /mcp
   * only.
   */
  const ownAudience = (aud: string[], clientId: unknown): boolean => {
    if (aud.length === 0) return false;
    for (const a of aud) if (a === mcp || (a !== clientId && !ownResources.has(a))) return false;
    return true;
  };
  const customize = compileCustomizer(config.string('custom-access-token-script'), roleClaim, logger);
  const current = keys.current;
  const verifierByKid = new Map<string, TokenVerifier>();
  for (const k of keys.verifiers) verifierByKid.set(k.kid, verifierOf(k, issuer));
  const verifyWithCurrent = verifierByKid.get(current.kid) ?? verifierOf(current, issuer);
  const signPayload = signerFor(current);
  const random = createRandomPool();
  const reuseGraceMs = Math.max(0, config.number('refresh-reuse-grace-seconds', 10)) * 1000;

  /** Adds iss, iat and exp to a payload built here for this one token, and signs it. */
  const signOwn = (claims: Record<string, unknown>, ttlSeconds: number): Promise<string> => {
    const iat = Math.floor(Date.now() / 1000);
    claims.iss = issuer;
    claims.iat = iat;
    claims.exp = iat + ttlSeconds;
    return signPayload(claims);
  };
  /** Callers' claims are copied, never changed. */
  const sign = async (
    claims: Record<string, unknown>,
    ttlSeconds: number,
  ): Promise<{ token: string; expiresAt: number }> => {
    const own = { ...claims };
    const token = await signOwn(own, ttlSeconds);
    return { token, expiresAt: own.exp as number };
  };

  /**
   * Tokens whose signature, algorithm and issuer were verified, until their `exp`. A JWS check is
   * a pure function of the token text and the (boot-time, fixed) keys, so verifying an identical
   * string again can only give the same answer; an entry's deadline is its `exp`, so a hit is
   * never an expired token.
   * This caches no authorization decision: callers look the session up on every request, so
   * logout, revoke, deactivation and admin revoke still take effect on the next request. Only
   * tokens that verified are stored (an attacker cannot fill it with garbage), from their second
   * use (`sighting`), at most VERIFIED_CACHE_MAX of them, found by their tail (verified-tokens.ts).
   */
  const verified = new VerifiedTokens<JWTPayload>(VERIFIED_CACHE_MAX);
  /** Only a token seen before is kept: one used once would only be churn (second-sighting.ts). */
  const sighting = new SecondSighting(VERIFIED_CACHE_MAX);
  /** Token checks answered from `verified`, and the ones that went on to the signature check (verifiedCacheStats). */
  let cacheHits = 0;
  let cacheMisses = 0;

  /**
   * Checks a token with the key its header names (the current key when it names none we hold).
   * With one key there is nothing to choose: the header is not decoded twice (jose reads it
   * anyway). Throws on a malformed header.
   */
  const verifyWithKeyOf = (token: string, now: number): Promise<JWTPayload | null> => {
    const kid = verifierByKid.size > 1 ? decodeProtectedHeader(token).kid : undefined;
    return ((kid ? verifierByKid.get(kid) : undefined) ?? verifyWithCurrent)(token, now);
  };

  /** Keeps a verified payload for its token (from its second sighting); the payload, for chaining. */
  const kept = (token: string, payload: JWTPayload | null): JWTPayload | null => {
    // Only tokens with an expiry and no future `nbf` (the verifier already refused those) are kept.
    if (payload && typeof payload.exp === 'number' && sighting.seenBefore(token))
      verified.set(token, payload, payload.exp);
    return payload;
  };

  /**
   * Signature, algorithm, issuer and expiry (jose, key-verifier.ts). Synchronous when the token
   * is in the verified-token cache: a bearer request's token check then adds no promise of its
   * own to the request. Never throws or rejects.
   */
  const verifyJwtNow = (token: string): Promise<JWTPayload | null> | JWTPayload | null => {
    if (token.length > MAX_TOKEN_LENGTH) return null;
    const now = Date.now() / 1000;
    const hit = verified.get(token, now);
    if (hit) {
      cacheHits++;
      return hit;
    }
    cacheMisses++;
    let checked: Promise<JWTPayload | null>;
    try {
      checked = verifyWithKeyOf(token, now);
    } catch {
      return null;
    }
    return checked.then(
      (payload) => kept(token, payload),
      () => null,
    );
  };
  const verifyJwt = async (token: string): Promise<JWTPayload | null> => verifyJwtNow(token);

  const sessionOf = (payload: JWTPayload): Promise<SessionRecord | null> | null => {
    const sid = payload.sid;
    if (typeof payload.sub !== 'string' || typeof sid !== 'string') return null;
    return sessions.get(payload.sub, sid);
  };

  /** `refreshJti`: the id of the refresh token to issue, when rotation chose it beforehand. */
  const issue = async (req: IssueRequest, refreshJti?: string): Promise<IssuedTokens> => {
    const { user, session } = req;
    const clientId = req.clientId ?? clientIdDefault;
    const ttl = req.accessTtlSeconds ?? ACCESS_TTL_SECONDS;
    const scope = req.scopes.join(' ');
    // Payloads are built by assignment, in the order the claims appear in the token: a computed
    // key and conditional spreads in one literal make V8 build it slowly, on every login.
    let access: Record<string, unknown> = {
      sub: user.id,
      aud: req.audience ?? clientId,
      jti: random.id(16),
      sid: session.id,
      client_id: clientId,
      scope,
      token_type: 'access_token',
    };
    access[roleClaim] = req.roles;
    if (req.nonce) access.nonce = req.nonce;
    access.login_method = session.amr.join(' ');
    if (req.extraClaims) {
      for (const [k, v] of Object.entries(req.extraClaims)) {
        if (RESERVED_CLAIMS.has(k) && k !== 'act') throw new Error(`extraClaims may not set reserved claim ${k}`);
        access[k] = v;
      }
    }
    const own = access;
    const custom = customize
      ? customize({ ...profileClaims(user), id: user.id, roles: user.roles }, { ...access })
      : undefined;
    if (custom && Object.keys(custom).length > 0) access = { ...custom, ...access };
    // `access` may be the customizer's merge, a fresh object either way: signed as it is.
    let accessToken = await signOwn(access, ttl);
    let expiresAt = access.exp as number;
    // Custom claims within MAX_CLAIMS_TEXT can still make tokens longer than verifyJwt takes: the
    // login would succeed with a token refused on every call. Such a script
    // contributes nothing, as one that fails does (custom-claims.ts).
    if (access !== own && accessToken.length > MAX_TOKEN_LENGTH) {
      logger.warn({ max: MAX_TOKEN_LENGTH }, 'custom access token claims make the token too long; issued without them');
      accessToken = await signOwn(own, ttl);
      expiresAt = own.exp as number;
    }
    const id = req.idTokenClaimsByScope ? scopedProfileClaims(user, req.scopes) : profileClaims(user);
    id.sub = user.id;
    id.aud = clientId;
    id.sid = session.id;
    id.auth_time = session.authTime;
    id.amr = session.amr;
    id.at_hash = halfHash(accessToken, current.alg);
    id.token_type = 'id_token';
    id[roleClaim] = req.roles;
    if (req.nonce) id.nonce = req.nonce;
    if (req.code) id.c_hash = halfHash(req.code, current.alg);
    const idToken = await signOwn(id, ttl);
    // `expires_in` is when the access token expires, its own `exp` (set by
    // signOwn on the payload it signed): a clock read apart from it could name a second earlier.
    const out: IssuedTokens = {
      access_token: accessToken,
      id_token: idToken,
      expires_in: expiresAt,
      lifetime: ttl,
      scope,
    };
    if (req.refresh ?? req.scopes.includes('offline_access')) {
      const jti = refreshJti ?? random.id(24);
      const record: RefreshRecord = {
        sid: session.id,
        family: session.family ?? session.id,
        userId: user.id,
        clientId,
        scopes: req.refreshScopes ?? req.scopes,
        roles: req.roles,
        ...(req.audience ? { audience: req.audience } : {}),
        ...(req.idTokenClaimsByScope ? { scopedClaims: true } : {}),
      };
      // The session must outlive its refresh token, or the rotated tokens would be born dead.
      // Extended only while it still exists: a logout or revoke that landed since this request
      // read it stands, and no refresh token is handed out (sessions/service.ts).
      if (!(await sessions.extend(session, Date.now() + REFRESH_TTL_SECONDS * 1000)))
        throw new ServiceError('unauthenticated', 'the session has ended');
      await memory.set(refreshKey(user.id, jti), JSON.stringify(record), REFRESH_TTL_SECONDS * 1000);
      out.refresh_token = await signOwn(
        {
          sub: user.id,
          aud: clientId,
          jti,
          sid: session.id,
          scope: req.refreshScopes ? req.refreshScopes.join(' ') : scope,
          token_type: 'refresh_token',
        },
        REFRESH_TTL_SECONDS,
      );
    }
    return out;
  };

  /** The access-token rules once the signature held: type, audience; then its live session. */
  const accessOf = (payload: JWTPayload | null, options: VerifyOptions): Promise<VerifiedToken | null> | null => {
    if (!payload || payload.token_type !== 'access_token') return null;
    const aud = Array.isArray(payload.aud) ? payload.aud : payload.aud !== undefined ? [payload.aud] : [];
    if (options.audience !== undefined) {
      if (!aud.includes(options.audience)) return null;
    } else {
      const accepted = options.audiences ?? 'own';
      if (accepted === 'own' ? !ownAudience(aud, payload.client_id) : accepted === 'not-mcp' && aud.includes(mcp))
        return null;
    }
    const session = sessionOf(payload);
    return (
      session &&
      session.then((s) => (s ? { claims: payload as Record<string, unknown>, userId: s.userId, session: s } : null))
    );
  };

  const NO_OPTIONS: VerifyOptions = {};
  const verifyAccessToken = (token: string, options: VerifyOptions = NO_OPTIONS): Promise<VerifiedToken | null> => {
    const payload = verifyJwtNow(token);
    if (payload instanceof Promise) return payload.then((p) => accessOf(p, options));
    // As an async function did: a session store that throws at once still answers with a rejection.
    try {
      return Promise.resolve(accessOf(payload, options));
    } catch (err) {
      return Promise.reject(err);
    }
  };

  const refreshPayload = async (token: string): Promise<{ payload: JWTPayload; jti: string; sub: string } | null> => {
    const payload = await verifyJwt(token);
    if (!payload || payload.token_type !== 'refresh_token' || typeof payload.jti !== 'string') return null;
    if (typeof payload.sub !== 'string' || payload.sub.length === 0 || payload.sub.includes(':')) return null;
    return { payload, jti: payload.jti, sub: payload.sub };
  };

  const invalid = () => new ServiceError('unauthenticated', 'invalid refresh token');

  /** validate for ID and refresh tokens: their signature, type and session (a refresh token's record too). */
  const validateOther = async (
    token: string,
    type: Exclude<TokenType, 'access_token'>,
  ): Promise<VerifiedToken | null> => {
    if (type === 'id_token') {
      const payload = await verifyJwt(token);
      if (!payload || payload.token_type !== 'id_token') return null;
      const session = await sessionOf(payload);
      return session ? { claims: payload as Record<string, unknown>, userId: session.userId, session } : null;
    }
    const r = await refreshPayload(token);
    if (!r || (await memory.get(refreshKey(r.sub, r.jti))) === null) return null;
    const session = await sessionOf(r.payload);
    return session ? { claims: r.payload as Record<string, unknown>, userId: session.userId, session } : null;
  };

  type RefreshOptions = Parameters<TokensService['refresh']>[1];
  type Presented = { payload: JWTPayload; jti: string; sub: string };

  /**
   * Rotation (RFC 9700 §4.14.2). The successor's id is chosen first and recorded in the spent mark,
   * then the successor is stored, and only then is the presented token spent (`spend`, atomic):
   * a crash before the spend leaves the presented token valid (its retry rotates again and removes
   * the unreturned successor), a crash after it leaves the successor stored, so either both
   * happened or neither. `rotatedAt` is when the presented token was first rotated (a repeat
   * inside the grace keeps the first time, so repeats cannot stretch the window).
   */
  const rotate = async (
    r: Presented,
    record: RefreshRecord,
    options: RefreshOptions,
    rotatedAt: number,
    spend: () => Promise<boolean>,
  ): Promise<RefreshResult> => {
    // RFC 6749 §6: a refresh may narrow the scope, never widen it. Checked before the token is
    // spent, so a request refused for its scope leaves the client's token usable.
    const wanted = options?.scopes;
    const scopes = wanted && wanted.length > 0 ? wanted : record.scopes;
    if (scopes.some((s) => !record.scopes.includes(s))) throw new ScopeExceedsGrantError();
    // Session and user are read before the token is spent: a read that fails (the database
    // unreachable) then leaves the client's token usable for a retry, where spending it first
    // made that retry a reuse that ended the family.
    const session = await sessions.get(record.userId, record.sid);
    if (!session) throw invalid();
    const user = await users.findById(record.userId);
    if (!user || user.revokedTimestamp !== null) {
      await sessions.revoke(record.userId, record.sid);
      throw invalid();
    }
    const successor = random.id(24);
    // The spent mark goes first: a replay arriving once the record is gone must find it, or it
    // is refused without ending the family.
    const mark: SpentMark = { family: familyOf(record), successor, rotatedAt, clientId: record.clientId };
    await memory.set(spentKey(r.sub, r.jti), JSON.stringify(mark), REFRESH_TTL_SECONDS * 1000);
    const tokens = await issue(
      {
        user,
        session,
        scopes,
        roles: record.roles,
        clientId: record.clientId,
        ...(record.audience ? { audience: record.audience } : {}),
        // Rotation: the grant had offline_access; the new refresh token keeps the grant's scope.
        refresh: true,
        refreshScopes: record.scopes,
        ...(record.scopedClaims ? { idTokenClaimsByScope: true } : {}),
      },
      successor,
    );
    if (!(await spend())) {
      await memory.delete(refreshKey(r.sub, successor));
      throw invalid();
    }
    return { user, session, tokens };
  };

  /**
   * A token that is no longer stored. Presented again by the same client within the reuse grace
   * of its rotation (the answer of that rotation was lost: a crash, a dropped connection), it
   * rotates anew and the successor the client never received is revoked, provided that successor
   * was not used meanwhile. Otherwise it is reuse: someone else holds the family, which ends
   * (RFC 9700 §4.14.2), including the sessions it was rotated into since.
   */
  const repeatOrReuse = async (r: Presented, options: RefreshOptions): Promise<RefreshResult> => {
    const raw = await memory.get(spentKey(r.sub, r.jti));
    if (raw === null) throw invalid();
    const mark = readMark(raw);
    const inGrace =
      reuseGraceMs > 0 &&
      mark.successor !== undefined &&
      mark.rotatedAt !== undefined &&
      Date.now() - mark.rotatedAt <= reuseGraceMs &&
      (options?.clientId === undefined || options.clientId === mark.clientId);
    if (inGrace && mark.successor) {
      const successor = mark.successor;
      // Taken atomically: of two repeats only one rotates; a successor already used is reuse.
      const held = await memory.consume(refreshKey(r.sub, successor));
      if (held !== null) {
        const record = JSON.parse(held) as RefreshRecord;
        // The revoked successor counts as spent: whoever presents it later ends the family.
        await memory.set(
          spentKey(r.sub, successor),
          JSON.stringify({ family: familyOf(record) } satisfies SpentMark),
          REFRESH_TTL_SECONDS * 1000,
        );
        logger.info({ userId: r.sub }, 'refresh token repeated within the reuse grace; rotated again');
        return rotate(r, record, options, mark.rotatedAt ?? Date.now(), async () => true);
      }
    }
    await sessions.revokeFamily(r.sub, mark.family);
    logger.warn({ userId: r.payload.sub }, 'refresh token reuse detected; session revoked');
    throw invalid();
  };

  const service: TokensService = {
    verifiedCacheStats: () => ({ hits: cacheHits, misses: cacheMisses, kept: verified.size }),
    authenticatedSession: (ctx) => authenticatedSessionOf(ctx.principal),
    async verifyIdTokenHint(token) {
      // RP-Initiated Logout 1.0 §2: the hint may have expired, but it must be one of ours. The
      // signature and issuer are checked as of the epoch, so `exp` passes; nothing else changes.
      if (token.length > MAX_TOKEN_LENGTH) return null;
      try {
        const payload = await verifyWithKeyOf(token, 0);
        return payload && payload.token_type === 'id_token' ? (payload as Record<string, unknown>) : null;
      } catch {
        return null;
      }
    },
    async forgetUser(userId) {
      await memory.deletePrefix(`refresh:${userId}:`);
      await memory.deletePrefix(`refresh-spent:${userId}:`);
    },
    issuer,
    accessTtlSeconds: ACCESS_TTL_SECONDS,
    refreshTtlSeconds: REFRESH_TTL_SECONDS,
    roleClaim,
    issue,
    sign,
    verifyAccessToken,
    // Not an async function: an access token's answer is verifyAccessToken's own promise, where an
    // async frame returning it cost two more microtask turns on every validate_jwt_token.
    validate(token: string, type: TokenType) {
      // A resource server may ask about a token bound to it; an MCP token is for /mcp only.
      if (type === 'access_token') return verifyAccessToken(token, { audiences: 'not-mcp' });
      return validateOther(token, type);
    },
    async refresh(token, options = {}): Promise<RefreshResult> {
      const r = await refreshPayload(token);
      if (!r) throw invalid();
      const raw = await memory.get(refreshKey(r.sub, r.jti));
      if (raw === null) return repeatOrReuse(r, options);
      const record = JSON.parse(raw) as RefreshRecord;
      if (options.clientId !== undefined && options.clientId !== record.clientId) throw invalid();
      // A rotation of this token that stored its successor and then stopped before spending it (a
      // crash) left that successor behind, unknown to any client: it goes now.
      const earlier = await memory.get(spentKey(r.sub, r.jti));
      const orphan = earlier === null ? undefined : readMark(earlier).successor;
      if (orphan) await memory.delete(refreshKey(r.sub, orphan));
      return rotate(r, record, options, Date.now(), async () => {
        // Atomic: of two concurrent uses only one gets the record; the other is a reuse.
        if ((await memory.consume(refreshKey(r.sub, r.jti))) === null) {
          await sessions.revokeFamily(record.userId, familyOf(record));
          return false;
        }
        return true;
      });
    },
    async revokeRefreshToken(token) {
      const r = await refreshPayload(token);
      if (!r) return false;
      const held = await memory.get(refreshKey(r.sub, r.jti));
      if (held === null) return false;
      const record = JSON.parse(held) as RefreshRecord;
      // Marked spent before it is taken away, as in `refresh`; no successor, so no reuse grace.
      await memory.set(
        spentKey(r.sub, r.jti),
        JSON.stringify({ family: familyOf(record) } satisfies SpentMark),
        REFRESH_TTL_SECONDS * 1000,
      );
      if ((await memory.consume(refreshKey(r.sub, r.jti))) === null) return false;
      // Revoking a refresh token ends its family: the session it belongs to and its successors.
      await sessions.revokeFamily(record.userId, familyOf(record));
      return true;
    },
  };
  return service;
}
