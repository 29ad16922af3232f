/**
 * The 'session' authenticator: a bearer access
 * token, else the app session cookie. Either way the session must still exist.
 */
import type { Principal, RequestContext } from '../../core/context.js';
import type { Authenticator } from '../../core/plugin.js';
import { SESSION_COOKIE, SESSION_DOMAIN_COOKIE } from '../sessions/index.js';
import type { SessionRecord, SessionsService } from '../sessions/index.js';
import { delegatedPrincipal } from './delegation.js';
import type { TokensService, VerifiedToken } from './types.js';

/**
 * The session a principal was recognised by, kept on the principal itself, so the request's
 * handler need not look it up a second time (one memory-store round trip less per call on Redis).
 * Under a symbol of this module: not enumerable by key, not in any JSON. It lives as long as the
 * principal, i.e. the request. (A WeakMap keyed by the request context would cost ~0.4 µs per
 * request for the entry of its new object, ~1% of a bearer request's CPU.)
 */
const SESSION = Symbol('latchkey.authenticated-session');
type WithSession = Principal & { [SESSION]?: SessionRecord };

/** The session `sessionAuthenticator` recognised this principal by, if it was one of its. */
export function authenticatedSessionOf(principal: Principal | undefined): SessionRecord | undefined {
  return (principal as WithSession | undefined)?.[SESSION];
}

/** Built by assignment: optional members as conditional spreads made V8 build it slowly, per request. */
function principalOf(session: SessionRecord, claims?: Record<string, unknown>): Principal {
  const p: WithSession = {
    kind: 'user',
    subject: `user:${session.userId}`,
    userId: session.userId,
    sessionId: session.id,
    scopes: session.scopes,
    roles: session.roles,
  };
  if (claims) p.claims = claims;
  if (session.clientId) p.clientId = session.clientId;
  p[SESSION] = session;
  return p;
}

export function sessionAuthenticator(tokens: TokensService, sessions: SessionsService): Authenticator {
  const principalOfToken = (verified: VerifiedToken | null): Principal | null => {
    if (!verified) return null;
    const p = principalOf(verified.session, verified.claims);
    const scope = verified.claims.scope;
    if (typeof scope === 'string') p.scopes = scope.split(' ').filter(Boolean);
    const roles = verified.claims[tokens.roleClaim];
    if (Array.isArray(roles)) p.roles = roles.filter((r): r is string => typeof r === 'string');
    return verified.claims.act === undefined ? p : delegatedPrincipal(p);
  };
  const fromBearer = (bearer: string): Promise<Principal | null> =>
    tokens.verifyAccessToken(bearer).then(principalOfToken);
  const fromCookie = async (ctx: RequestContext): Promise<Principal | null> => {
    const session = await sessions.fromRequest(ctx);
    if (!session) return null;
    return principalOf(session);
  };
  return (ctx: RequestContext) => {
    const bearer = ctx.bearer();
    if (bearer) return fromBearer(bearer);
    // Neither a token nor a session cookie: nothing to look up, and no promise to wait for (an
    // admin calling with its header goes on to the next authenticator at once).
    if (ctx.cookie(SESSION_COOKIE) === undefined && ctx.cookie(SESSION_DOMAIN_COOKIE) === undefined) return null;
    return fromCookie(ctx);
  };
}
