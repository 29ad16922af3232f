/**
 * The account flows behind the public operations: signup, login, session, logout, profile
 * changes, deactivation. Each is a short pipeline of named checks; the records, sessions and
 * tokens themselves belong to the users, sessions and tokens services.
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError, invalidArgument, permissionDenied, unauthenticated } from '../../core/errors.js';
import type { SessionRecord } from '../sessions/index.js';
import type { UserRecord } from '../users/index.js';

export const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

export const deps = (ctx: RequestContext) => ({
  config: ctx.kernel.config,
  users: ctx.kernel.service('users'),
  sessions: ctx.kernel.service('sessions'),
  tokens: ctx.kernel.service('tokens'),
});

export function requestedScopes(scope: readonly string[] | undefined): string[] {
  if (!scope || scope.length === 0) return [...DEFAULT_SCOPES];
  for (const s of scope)
    if (!/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/.test(s)) throw invalidArgument(`invalid scope "${s.slice(0, 40)}"`);
  return [...new Set(scope)];
}

/** Signup roles: from `--roles`, never a protected one; `--default-roles` when none asked. */
export function signupRoles(ctx: RequestContext, wanted: readonly string[] | undefined): string[] {
  const { users } = deps(ctx);
  if (!wanted || wanted.length === 0) return [...users.roles.defaults];
  for (const r of wanted) {
    if (!users.roles.allowed.includes(r) || users.roles.protected.includes(r)) throw invalidArgument('invalid roles');
  }
  return [...new Set(wanted)];
}

export type { AuthResult } from '../sign-in/index.js';
import type { SignInAttempt } from '../sign-in/index.js';

/** Starts a session, sets the cookies and issues the tokens, after the sign-in gates (signup, login). */
export function startSession(ctx: RequestContext, user: UserRecord, opts: Omit<SignInAttempt, 'user'>) {
  return ctx.kernel.service('sign-in').complete(ctx, { user, ...opts });
}

/** Issues fresh tokens for an existing session and sets its cookies (a refresh). */
export function respond(ctx: RequestContext, user: UserRecord, session: SessionRecord, message: string) {
  return ctx.kernel.service('sign-in').respond(ctx, user, session, message);
}

/** Which login method an identifier uses, and whether the flags allow it. */
export function loginMethod(
  ctx: RequestContext,
  input: { email?: string; phone_number?: string },
): 'basic_auth' | 'mobile_basic_auth' {
  const { config } = deps(ctx);
  if (input.email !== undefined && input.email !== '') {
    if (!config.bool('enable-basic-authentication', true))
      throw permissionDenied('basic authentication is disabled for this instance');
    return 'basic_auth';
  }
  if (input.phone_number !== undefined && input.phone_number !== '') {
    if (!config.bool('enable-mobile-basic-authentication'))
      throw permissionDenied('mobile basic authentication is disabled for this instance');
    return 'mobile_basic_auth';
  }
  throw invalidArgument('email or phone_number is required');
}

export const badCredentials = () => unauthenticated('bad user credentials');
export const revokedAccess = () => new ServiceError('permission_denied', 'user access has been revoked');
export const lockedOut = () =>
  new ServiceError('resource_exhausted', 'too many failed login attempts, account locked for 15 minutes');
/** Five checks of the account's password were already running and did not finish in time (users/service.ts). */
export const loginsBusy = () =>
  new ServiceError('resource_exhausted', 'too many login attempts in progress for this account, try again shortly');
