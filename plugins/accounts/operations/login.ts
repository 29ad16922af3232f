/** `login`: email or phone number and password, with lockout; starts a session. */
import { ServiceError, permissionDenied } from '../../../core/errors.js';
import { defineOperation } from '../../../core/operations.js';
import { hasRoles } from '../relations.js';
import { AuthResponse, LoginRequest } from '../schemas.js';
import {
  badCredentials,
  deps,
  lockedOut,
  loginsBusy,
  loginMethod,
  requestedScopes,
  revokedAccess,
  startSession,
} from '../service.js';
import { loginEvent } from '../../sign-in/index.js';

export const loginOperation = defineOperation({
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
    // A login whose tokens a gate withheld (MFA) is recorded as not completed; verify_otp records the rest.
    metadata: ({ input, output }) =>
      output
        ? { method: 'password', ...(output.access_token ? {} : { completed: false }) }
        : { method: 'password', identifier: input.email ?? input.phone_number },
  },
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
    // (users/password-checks.ts), and answering it 401 where an account gets "in progress"
    // would tell them apart.
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
    return startSession(ctx, user, {
      method,
      roles,
      scopes,
      amr: ['pwd'],
      message: 'Logged in successfully',
      readAt,
      // Stored with the session's start; a login the MFA gate withheld is not one yet: the step
      // that finishes it sends the event.
      within: loginEvent(ctx.kernel.events, method),
    });
  },
});

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
