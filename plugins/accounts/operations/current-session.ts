/** The caller's session and user, as the account operations read them. */
import type { RequestContext } from '../../../core/context.js';
import { permissionDenied, unauthenticated } from '../../../core/errors.js';
import type { UserRecord } from '../../users/index.js';
import type { SessionRecord } from '../../sessions/index.js';
import { deps } from '../service.js';

/**
 * The caller's session and user. `firstParty`: the operation manages the account itself (fresh
 * first-party tokens and cookies, profile and password changes, deactivation), so a session an
 * OAuth client got through /authorize (its `clientId` is another client's) is refused: a token
 * granted to a third party for `openid` must not become the user's own credentials, nor close
 * the account (`session` with such a token would return first-party tokens with any scope, a
 * refresh token and the browser's cookies). Reading the profile stays open to it, as
 * /userinfo is, and MCP clients use it.
 */
export async function currentSession(ctx: RequestContext, firstParty = false): Promise<CurrentSession> {
  const p = ctx.requirePrincipal();
  const { sessions, users, tokens, config } = deps(ctx);
  if (firstParty && p.clientId !== undefined && p.clientId !== config.string('client-id')) {
    throw permissionDenied(
      'this operation needs a session of the first-party app; the token was issued to another client',
    );
  }
  const session =
    knownSession(ctx, tokens) ?? (p.userId && p.sessionId ? await sessions.get(p.userId, p.sessionId) : null);
  const user = session ? await users.findById(session.userId) : null;
  if (!session || !user) throw unauthenticated();
  return { session, user };
}

export interface CurrentSession {
  session: SessionRecord;
  user: UserRecord;
}

/** The session the authenticator has just looked up for this very request, when it is the principal's. */
function knownSession(ctx: RequestContext, tokens: ReturnType<typeof deps>['tokens']): SessionRecord | undefined {
  const p = ctx.requirePrincipal();
  const known = tokens.authenticatedSession(ctx);
  return known && known.id === p.sessionId && known.userId === p.userId ? known : undefined;
}

/**
 * The caller's user without a promise, for reading the profile: when the authenticator's session
 * is the principal's and the users service's cache holds its user (findById would answer from
 * that same cache). A cold bearer `profile` then costs no promise of its own: 214.4k machine
 * instructions on the main thread against 217.0k (bench/profiling/callgrind-requests.ts). Undefined otherwise; operations that change state always take currentSession's path.
 */
export function cachedCurrentUser(
  ctx: RequestContext,
  { users, tokens }: ReturnType<typeof deps>,
): UserRecord | undefined {
  const session = knownSession(ctx, tokens);
  return session && users.cachedById(session.userId);
}
