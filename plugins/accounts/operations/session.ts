/** `session`: fresh tokens for the current session, which is rotated. */
import { invalidArgument, permissionDenied, unauthenticated } from '../../../core/errors.js';
import { defineOperation } from '../../../core/operations.js';
import { hasRelations, hasRoles } from '../relations.js';
import { AuthResponse, SessionQueryRequest } from '../schemas.js';
import { deps, requestedScopes, respond, revokedAccess } from '../service.js';
import { currentSession } from './current-session.js';

export const sessionOperation = defineOperation({
  name: 'session',
  kind: 'query',
  access: 'session',
  description: 'Returns fresh tokens for the current session and rotates it.',
  changesState: true,
  input: SessionQueryRequest,
  output: AuthResponse,
  graphql: { required: false },
  handler: async (ctx, input) => {
    const { session, user } = await currentSession(ctx, true);
    if (user.revokedTimestamp !== null) throw revokedAccess();
    if (!hasRoles(session.roles, input?.roles)) throw permissionDenied('unauthorized');
    if (!(await hasRelations(ctx, `user:${user.id}`, input?.required_relations)))
      throw permissionDenied('unauthorized');
    const scopes = input?.scope && input.scope.length > 0 ? requestedScopes(input.scope) : session.scopes;
    // A session may narrow its scopes, never widen them (as a refresh may not, RFC 6749 §6):
    // a short-lived access token, stolen, must not turn into a 30-day refresh token by asking
    // for `offline_access` here.
    const extra = scopes.find((s) => !session.scopes.includes(s));
    if (extra !== undefined) throw invalidArgument(`scope "${extra.slice(0, 40)}" was not granted to this session`);
    const { sessions } = deps(ctx);
    // A cookie of a session another tab has just rotated stands for its successor (sessions
    // service, ROTATION_GRACE_MS): that one is answered as it is, not rotated again, so the
    // tabs end up sharing one session and the first tab's tokens stay valid.
    // Only when it has the scopes this call asks for: the successor's own (another tab may
    // have narrowed them) must not be answered whatever was asked; otherwise it is
    // rotated with this call's scopes, as is a concurrent rotation's elected successor.
    const same = (a: readonly string[]) => a.length === scopes.length && a.every((s) => scopes.includes(s));
    let rotated =
      session.successorOf !== undefined && same(session.scopes) ? session : await sessions.rotate(session, { scopes });
    if (rotated && !same(rotated.scopes)) rotated = await sessions.rotate(rotated, { scopes });
    // Ended (logout, revoke) while this request ran: it stays ended.
    if (!rotated) throw unauthenticated();
    return respond(ctx, user, rotated, 'Session refreshed successfully');
  },
});
