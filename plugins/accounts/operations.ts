/**
 * The public account operations (SPEC.md "Endpoints", CONTRACT.md "Operations"). Inputs are
 * closed TypeBox schemas, so unknown fields, wrong types and oversized strings are an
 * `invalid_argument` before any handler runs, and nothing is written.
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError, invalidArgument, permissionDenied, unauthenticated } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { MessageResponse } from '../../core/schema.js';
import { UserSchema } from '../users/index.js';
import type { UserPatch, UserRecord } from '../users/index.js';
import type { SessionRecord } from '../sessions/index.js';
import { hasRelations, hasRoles } from './relations.js';
import {
  AuthResponse,
  LoginRequest,
  OAuthRevokeRequest,
  SessionQueryRequest,
  SignUpRequest,
  UpdateProfileRequest,
  ValidateJWTTokenRequest,
  ValidateJWTTokenResponse,
  ValidateSessionRequest,
  ValidateSessionResponse,
} from './schemas.js';
import { VERIFICATION_SENT } from './verification.js';
import {
  badCredentials,
  deps,
  lockedOut,
  loginsBusy,
  loginMethod,
  requestedScopes,
  respond,
  revokedAccess,
  signupRoles,
  startSession,
} from './service.js';

/**
 * The caller's session and user. `firstParty`: the operation manages the account itself (fresh
 * first-party tokens and cookies, profile and password changes, deactivation), so a session an
 * OAuth client got through /authorize (its `clientId` is another client's) is refused: a token
 * granted to a third party for `openid` must not become the user's own credentials, nor close
 * the account (review finding: `session` with such a token returned first-party tokens with any
 * scope, a refresh token and the browser's cookies). Reading the profile stays open to it, as
 * /userinfo is, and MCP clients use it.
 */
async function currentSession(ctx: RequestContext, firstParty = false): Promise<CurrentSession> {
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

interface CurrentSession {
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
 * instructions on the main thread against 217.0k (bench/profiling/callgrind-requests.ts, session
 * 30). Undefined otherwise; operations that change state always take currentSession's path.
 */
function cachedCurrentUser(ctx: RequestContext, { users, tokens }: ReturnType<typeof deps>): UserRecord | undefined {
  const session = knownSession(ctx, tokens);
  return session && users.cachedById(session.userId);
}

function emit(ctx: RequestContext, name: string, payload: Record<string, unknown>): void {
  ctx.kernel.events.emit(name, payload);
}

export const accountOperations: AnyOperation[] = [
  defineOperation({
    name: 'signup',
    kind: 'mutation',
    access: 'public',
    description: 'Registers a user with email or phone number and password; starts a session.',
    input: SignUpRequest,
    output: AuthResponse,
    tokenOutput: true,
    handler: async (ctx, input) => {
      const { config, users } = deps(ctx);
      if (!config.bool('enable-signup', true)) throw permissionDenied('signup is disabled for this instance');
      const method = loginMethod(ctx, input);
      if (input.password !== input.confirm_password)
        throw invalidArgument('password and confirm password does not match');
      users.checkPasswordPolicy(input.password);
      const roles = signupRoles(ctx, input.roles);
      const scopes = requestedScopes(input.scope);
      // With --enable-email-verification a password signup's address is proven first: its
      // request is stored with the user, in one commit (plugins/users/email-verification.ts).
      const proving = method === 'basic_auth' && config.bool('enable-email-verification');
      const user = await users.create(
        {
          ...(method === 'basic_auth' ? { email: input.email } : {}),
          ...(input.phone_number ? { phone_number: input.phone_number } : {}),
          password: input.password,
          signup_method: method,
          roles,
          given_name: input.given_name,
          family_name: input.family_name,
          middle_name: input.middle_name,
          nickname: input.nickname,
          gender: input.gender,
          birthdate: input.birthdate,
          picture: input.picture,
          app_data: input.app_data,
          is_multi_factor_auth_enabled: input.is_multi_factor_auth_enabled,
        },
        proving ? { proveEmail: input.redirect_uri ? { redirectUri: input.redirect_uri } : {} } : {},
      );
      if (proving && user.email !== null) {
        // No session until the address is proven (login refuses unverified emails as well).
        const dto = users.toUserDto(user);
        emit(ctx, 'user.created', { user: dto, auth_recipe: method });
        emit(ctx, 'user.signup', { user: dto, auth_recipe: method });
        return { message: VERIFICATION_SENT, user: dto };
      }
      const result = await startSession(ctx, user, {
        method,
        roles,
        scopes,
        amr: ['pwd'],
        message: 'Signed up successfully.',
      });
      emit(ctx, 'user.created', { user: result.user, auth_recipe: method });
      emit(ctx, 'user.signup', { user: result.user, auth_recipe: method });
      return result;
    },
  }),
  defineOperation({
    name: 'login',
    kind: 'mutation',
    access: 'public',
    description: 'Logs in with email or phone number and password; starts a session.',
    input: LoginRequest,
    output: AuthResponse,
    audit: {
      action: 'user.login',
      resourceType: 'user',
      failures: true,
      resourceId: ({ output }) => output?.user?.id,
      actor: ({ output }) =>
        output?.user
          ? { kind: 'user', id: output.user.id, ...(output.user.email ? { email: output.user.email } : {}) }
          : undefined,
      metadata: ({ input, output }) =>
        output ? { method: 'password' } : { method: 'password', identifier: input.email ?? input.phone_number },
    },
    tokenOutput: true,
    handler: async (ctx, input) => {
      const { config, users } = deps(ctx);
      const method = loginMethod(ctx, input);
      // Before the user is read: a revoke of all its sessions after this moment ends the new one too.
      const readAt = Date.now();
      const user =
        method === 'basic_auth'
          ? await users.findByEmail(input.email ?? '')
          : await users.findByPhone(input.phone_number ?? '');
      // An unknown account costs the same hash as a known one (no timing oracle), and fails and
      // locks like one (no lockout oracle).
      const tried =
        method === 'basic_auth'
          ? `email:${normalizedOr(users.normalizeEmail, input.email ?? '')}`
          : `phone:${normalizedOr(users.normalizePhone, input.phone_number ?? '')}`;
      const check = await users.verifyPassword(user ?? UNKNOWN_USER, input.password, user ? undefined : tried);
      // Locked and busy first: an unknown identifier passes the same gate as an account
      // (users/service.ts), and answering it 401 where an account got "in progress" told them
      // apart (review finding).
      if (check === 'locked') throw lockedOut();
      if (check === 'busy') throw loginsBusy();
      if (!user || check !== 'ok') throw badCredentials();
      if (user.revokedTimestamp !== null) throw revokedAccess();
      if (method === 'basic_auth' && config.bool('enable-email-verification') && user.emailVerifiedAt === null) {
        throw new ServiceError('failed_precondition', 'email not verified');
      }
      const roles = input.roles && input.roles.length > 0 ? [...new Set(input.roles)] : user.roles;
      if (!hasRoles(user.roles, roles)) throw permissionDenied('invalid role');
      const scopes = requestedScopes(input.scope);
      const result = await startSession(ctx, user, {
        method,
        roles,
        scopes,
        amr: ['pwd'],
        message: 'Logged in successfully',
        readAt,
      });
      emit(ctx, 'user.login', { user: result.user, auth_recipe: method });
      return result;
    },
  }),
  defineOperation({
    name: 'session',
    kind: 'query',
    access: 'session',
    description: 'Returns fresh tokens for the current session and rotates it.',
    changesState: true,
    input: SessionQueryRequest,
    output: AuthResponse,
    tokenOutput: true,
    graphql: { required: false },
    handler: async (ctx, input) => {
      const { session, user } = await currentSession(ctx, true);
      if (user.revokedTimestamp !== null) throw revokedAccess();
      if (!hasRoles(session.roles, input?.roles)) throw permissionDenied('unauthorized');
      if (!(await hasRelations(ctx, `user:${user.id}`, input?.required_relations)))
        throw permissionDenied('unauthorized');
      const scopes = input?.scope && input.scope.length > 0 ? requestedScopes(input.scope) : session.scopes;
      // A session may narrow its scopes, never widen them (as a refresh may not, RFC 6749 §6):
      // a short-lived access token, stolen, turned into a 30-day refresh token by asking for
      // `offline_access` here (review finding).
      const extra = scopes.find((s) => !session.scopes.includes(s));
      if (extra !== undefined) throw invalidArgument(`scope "${extra.slice(0, 40)}" was not granted to this session`);
      const { sessions } = deps(ctx);
      // A cookie of a session another tab has just rotated stands for its successor (sessions
      // service, ROTATION_GRACE_MS): that one is answered as it is, not rotated again, so the
      // tabs end up sharing one session and the first tab's tokens stay valid.
      // Only when it has the scopes this call asks for: the successor's own (another tab may
      // have narrowed them) were answered whatever was asked (review finding); otherwise it is
      // rotated with this call's scopes, as is a concurrent rotation's elected successor.
      const same = (a: readonly string[]) => a.length === scopes.length && a.every((s) => scopes.includes(s));
      let rotated =
        session.successorOf !== undefined && same(session.scopes)
          ? session
          : await sessions.rotate(session, { scopes });
      if (rotated && !same(rotated.scopes)) rotated = await sessions.rotate(rotated, { scopes });
      // Ended (logout, revoke) while this request ran: it stays ended.
      if (!rotated) throw unauthenticated();
      return respond(ctx, user, rotated, 'Session refreshed successfully');
    },
  }),
  defineOperation({
    name: 'logout',
    kind: 'mutation',
    access: 'session',
    description: 'Ends the current session.',
    output: MessageResponse,
    audit: { action: 'user.logout', resourceType: 'session', resourceId: ({ ctx }) => ctx.principal?.sessionId },
    handler: async (ctx) => {
      const p = ctx.requirePrincipal();
      const { sessions } = deps(ctx);
      if (p.userId && p.sessionId) await sessions.revoke(p.userId, p.sessionId);
      // The cookies cleared below may name other sessions than the one the caller was
      // recognised by (the authenticator prefers a bearer token, and the host cookie over the
      // domain one): those end too, or a copy of a cleared cookie kept working after the logout
      // (review finding). Cookies the transport does not honour for this caller are neither
      // read here nor cleared.
      for (const named of await sessions.cookieSessions(ctx)) {
        if (named.id !== p.sessionId) await sessions.revoke(named.userId, named.id);
      }
      sessions.clearCookies(ctx);
      return { message: 'Logged out successfully' };
    },
  }),
  defineOperation({
    name: 'profile',
    kind: 'query',
    access: 'session',
    description: "The caller's profile.",
    rest: { method: 'GET' },
    mcp: true,
    output: UserSchema,
    handler: (ctx) => {
      const services = deps(ctx);
      const cached = cachedCurrentUser(ctx, services);
      return cached
        ? services.users.toUserDto(cached)
        : currentSession(ctx).then(({ user }) => services.users.toUserDto(user));
    },
  }),
  defineOperation({
    name: 'update_profile',
    kind: 'mutation',
    access: 'session',
    description: "Updates the caller's profile, password, email or phone number.",
    input: UpdateProfileRequest,
    output: MessageResponse,
    audit: {
      action: 'user.password_change',
      resourceType: 'user',
      resourceId: ({ ctx }) => ctx.principal?.userId,
      when: ({ input }) => input.new_password !== undefined,
    },
    handler: async (ctx, input) => {
      const { session, user } = await currentSession(ctx, true);
      const { users, sessions, config } = deps(ctx);
      const patch: UserPatch = {};
      for (const k of [
        'given_name',
        'family_name',
        'middle_name',
        'nickname',
        'gender',
        'birthdate',
        'picture',
      ] as const) {
        if (input[k] !== undefined) patch[k] = input[k];
      }
      if (input.app_data !== undefined) patch.app_data = input.app_data;
      if (input.is_multi_factor_auth_enabled !== undefined)
        patch.is_multi_factor_auth_enabled = input.is_multi_factor_auth_enabled;
      if (input.email !== undefined) patch.email = users.normalizeEmail(input.email);
      // An empty phone number removes it (the users service keeps a user with neither address
      // from being made). The email is not removable here: the basic-auth login needs it.
      if (input.phone_number !== undefined)
        patch.phone_number = input.phone_number.trim() === '' ? '' : users.normalizePhone(input.phone_number);
      const changingPassword = input.new_password !== undefined || input.confirm_new_password !== undefined;
      if (changingPassword || input.old_password !== undefined) {
        if (input.old_password === undefined) throw invalidArgument('old password is required to change the password');
        if (input.new_password === undefined) throw invalidArgument('new password is required');
        if (input.new_password !== input.confirm_new_password)
          throw invalidArgument('new password and confirm new password does not match');
        users.checkPasswordPolicy(input.new_password);
        const check = await users.verifyPassword(user, input.old_password);
        if (check === 'locked') throw lockedOut();
        if (check === 'busy') throw loginsBusy();
        if (check !== 'ok') throw invalidArgument('incorrect old password');
        patch.password = input.new_password;
      }
      if (Object.keys(patch).length === 0) throw invalidArgument('please enter at least one param to update');
      // A new address is proven as at signup (login refuses unverified ones): its request is
      // stored with it, and the sessions end until it is proven (authorizer does so).
      const { proofRequested } = await users.update(user.id, patch, {
        proveNewEmail: config.bool('enable-email-verification'),
      });
      if (proofRequested) {
        await sessions.revokeAll(user.id);
        sessions.clearCookies(ctx);
        return { message: 'Profile details updated successfully' };
      }
      if (patch.password !== undefined) {
        // A new password ends every other session (someone else may know the old one) and keeps
        // the caller's. Called with a token, the session keeps its id: its tokens name it, and this
        // operation answers a message, with no new tokens to hand out (before session 27 the
        // caller's app was signed out by its own password change; authorizer, whose SDK calls
        // this, ends no session here). Called with the cookie, it is renewed: a new id in a new
        // cookie, as after a sign-in.
        const byToken = ctx.principal?.claims !== undefined;
        let kept: SessionRecord | null;
        if (byToken) kept = await sessions.keepOnly(session);
        else {
          await sessions.revokeAll(user.id);
          kept = await sessions.create({
            userId: user.id,
            roles: session.roles,
            scopes: session.scopes,
            amr: session.amr,
            authTime: session.authTime,
          });
        }
        // An admin's revoke, deletion or role change that landed since this request read the
        // user ended the others before `kept` was stored, and would let it live with access or
        // roles the user no longer has (review finding). Read after storing it: a change
        // committed later is followed by its own ending of every session, which finds `kept`.
        const now = kept ? await users.findById(user.id, { fresh: true }) : null;
        if (kept && (!now || now.revokedTimestamp !== null || !hasRoles(now.roles, session.roles))) {
          await sessions.revoke(user.id, kept.id);
          kept = null;
        }
        if (!byToken) {
          if (kept) sessions.setCookies(ctx, kept);
          else sessions.clearCookies(ctx);
        }
      }
      return { message: 'Profile details updated successfully' };
    },
  }),
  defineOperation({
    name: 'deactivate_account',
    kind: 'mutation',
    access: 'session',
    description: "Deactivates the caller's account and ends all its sessions.",
    output: MessageResponse,
    audit: { action: 'user.deactivate', resourceType: 'user', resourceId: ({ ctx }) => ctx.principal?.userId },
    handler: async (ctx) => {
      const { user } = await currentSession(ctx, true);
      const { users, sessions } = deps(ctx);
      const { user: updated, changed } = await users.setAccess(user.id, Math.floor(Date.now() / 1000));
      await sessions.revokeAll(user.id);
      sessions.clearCookies(ctx);
      if (changed) emit(ctx, 'user.deactivated', { user: users.toUserDto(updated) });
      return { message: 'user account deactivated successfully' };
    },
  }),
  defineOperation({
    name: 'revoke',
    kind: 'mutation',
    access: 'public',
    description: 'Revokes a refresh token and its family (RFC 7009: unknown tokens are not an error).',
    input: OAuthRevokeRequest,
    output: MessageResponse,
    audit: { action: 'token.revoke', resourceType: 'refresh_token' },
    handler: async (ctx, input) => {
      await deps(ctx).tokens.revokeRefreshToken(input.refresh_token);
      return { message: 'Token revoked successfully' };
    },
  }),
  defineOperation({
    name: 'validate_jwt_token',
    kind: 'query',
    access: 'public',
    description: 'Validates a token (signature, issuer, expiry, live session) and optional roles and relations.',
    input: ValidateJWTTokenRequest,
    output: ValidateJWTTokenResponse,
    // Promises chained, not awaited: the token's session lookup is the call's only wait when no
    // relation is asked for: a cold validate_jwt_token 245.7k machine instructions on the main
    // thread against 247.8k (bench/profiling/callgrind-requests.ts OP=validate, session 30).
    handler: (ctx, input) => {
      const { tokens } = deps(ctx);
      return tokens.validate(input.token, input.token_type).then((verified) => {
        if (!verified) return { is_valid: false };
        const raw = verified.claims[tokens.roleClaim];
        const roles = Array.isArray(raw)
          ? raw.filter((r): r is string => typeof r === 'string')
          : verified.session.roles;
        if (!hasRoles(roles, input.roles)) return { is_valid: false };
        const valid = { is_valid: true, claims: verified.claims };
        const related = hasRelations(ctx, `user:${verified.userId}`, input.required_relations);
        return related === true ? valid : related.then((ok) => (ok ? valid : { is_valid: false }));
      });
    },
  }),
  defineOperation({
    name: 'validate_session',
    kind: 'query',
    access: 'public',
    description: 'Validates an app session cookie value and optional roles and relations.',
    input: ValidateSessionRequest,
    output: ValidateSessionResponse,
    graphql: { required: false },
    handler: async (ctx, input) => {
      const { sessions, users } = deps(ctx);
      let cookie = input.cookie;
      try {
        cookie = decodeURIComponent(cookie);
      } catch {
        // Not URL-encoded; use as given.
      }
      const session = await sessions.fromCookie(cookie);
      const user = session ? await users.findById(session.userId) : null;
      if (!session || !user || user.revokedTimestamp !== null) return { is_valid: false };
      if (!hasRoles(session.roles, input.roles)) return { is_valid: false };
      if (!(await hasRelations(ctx, `user:${user.id}`, input.required_relations))) return { is_valid: false };
      return { is_valid: true, user: users.toUserDto(user) };
    },
  }),
];

/** The identifier as lookups see it, or as given when it is malformed (no account can hold it then). */
function normalizedOr(normalize: (value: string) => string, value: string): string {
  try {
    return normalize(value);
  } catch {
    return value;
  }
}

/** Stands in for a missing account in the password check (no hash: the decoy path runs). */
const UNKNOWN_USER = {
  id: 'unknown',
  email: null,
  emailVerifiedAt: null,
  phoneNumber: null,
  phoneNumberVerifiedAt: null,
  password: null,
  signupMethods: [],
  givenName: null,
  familyName: null,
  middleName: null,
  nickname: null,
  preferredUsername: null,
  gender: null,
  birthdate: null,
  picture: null,
  roles: [],
  createdAt: 0,
  updatedAt: 0,
  revokedTimestamp: null,
  isMultiFactorAuthEnabled: null,
  hasSkippedMfaSetupAt: null,
  mfaLockedAt: null,
  appData: null,
};
