/**
 * Which account a proven provider identity signs in to, as a pipeline of named steps:
 * the account already linked to the provider's subject; else an account with the same email,
 * linked only when the provider attests the email as verified and the account has verified it
 * too (no takeover through an unverified address on either side); else a new account when
 * `--enable-signup` allows it.
 */
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { UserRecord } from '../users/index.js';
import type { SocialIdentities } from './identities.js';
import type { LoginRequest, SocialProfile } from './types.js';

/** Ends a login with an OAuth-style error for the application (access_denied, invalid_request). */
export class AccountRefusal extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    /** The account refused, when it is known (its refused login names it in the audit log). */
    readonly user?: UserRecord,
  ) {
    super(description);
  }
}

export interface ResolvedAccount {
  user: UserRecord;
  roles: string[];
  created: boolean;
}

function normalizedEmail(ctx: RequestContext, email: string | undefined): string | undefined {
  if (!email) return undefined;
  try {
    return ctx.kernel.service('users').normalizeEmail(email);
  } catch {
    // A provider address this service cannot store is treated as no address at all.
    return undefined;
  }
}

async function linkedUser(
  ctx: RequestContext,
  ids: SocialIdentities,
  provider: string,
  profile: SocialProfile,
): Promise<UserRecord | null> {
  const userId = await ids.userOf(provider, profile.subject);
  if (!userId) return null;
  const user = await ctx.kernel.service('users').findById(userId, { fresh: true });
  if (!user) await ids.unlink(provider, profile.subject);
  return user;
}

async function userWithSameEmail(
  ctx: RequestContext,
  ids: SocialIdentities,
  provider: string,
  profile: SocialProfile,
  email: string | undefined,
): Promise<UserRecord | null> {
  if (!email) return null;
  const users = ctx.kernel.service('users');
  const existing = await users.findByEmail(email);
  if (!existing) return null;
  if (!profile.emailVerified)
    throw new AccountRefusal(
      'access_denied',
      'an account with this email already exists and the provider does not attest the email as verified; sign in to that account first',
    );
  if (existing.revokedTimestamp !== null) return existing;
  // Both sides must have proven the address: an account whose email was never verified may have
  // been opened by someone else in the owner's name (a password or a provider identity waiting
  // for them), and linking would let that credential into the owner's account.
  if (existing.emailVerifiedAt === null)
    throw new AccountRefusal(
      'access_denied',
      'an account with this email exists but its email was never verified; verify it from that account first',
    );
  if (!(await ids.link(provider, profile.subject, existing.id)))
    throw new AccountRefusal('access_denied', 'this provider account is already linked to another user');
  if (existing.signupMethods.includes(provider)) return existing;
  return (await users.update(existing.id, { signup_methods: [...existing.signupMethods, provider] })).after;
}

async function newUser(
  ctx: RequestContext,
  ids: SocialIdentities,
  provider: string,
  profile: SocialProfile,
  email: string | undefined,
  request: LoginRequest,
): Promise<ResolvedAccount> {
  const { config } = ctx.kernel;
  const users = ctx.kernel.service('users');
  if (!config.bool('enable-signup', true))
    throw new AccountRefusal('access_denied', 'signup is disabled for this instance');
  const roles = request.roles.length > 0 ? request.roles : [...users.roles.defaults];
  if (roles.some((r) => users.roles.protected.includes(r)))
    throw new AccountRefusal('invalid_request', 'invalid roles');
  let user: UserRecord;
  try {
    user = await users.create(
      {
        ...(email ? { email, email_verified: profile.emailVerified } : {}),
        signup_method: provider,
        roles,
        ...(profile.givenName ? { given_name: profile.givenName } : {}),
        ...(profile.familyName ? { family_name: profile.familyName } : {}),
        ...(profile.nickname ? { nickname: profile.nickname } : {}),
        ...(profile.preferredUsername ? { preferred_username: profile.preferredUsername } : {}),
        ...(profile.picture ? { picture: profile.picture } : {}),
      },
      {
        // The user, its identity link and its signup's events are stored by one commit.
        within: async (unit, created) => {
          ids.linkWithin(unit, provider, profile.subject, created.id);
          const dto = users.toUserDto(created);
          await ctx.kernel.events.emitWithin(unit, 'user.created', { user: dto, auth_recipe: provider });
          await ctx.kernel.events.emitWithin(unit, 'user.signup', { user: dto, auth_recipe: provider });
        },
      },
    );
  } catch (err) {
    // Another login created the same address meanwhile.
    if (err instanceof ServiceError && err.code === 'already_exists')
      throw new AccountRefusal('access_denied', 'an account with this email already exists');
    // A concurrent first login of the same subject linked it first: nothing of this one is kept.
    if (err instanceof UniqueConstraintViolationException && (await ids.userOf(provider, profile.subject)) !== null)
      throw new AccountRefusal('access_denied', 'the sign-in raced another one; try again');
    throw err;
  }
  return { user, roles, created: true };
}

function checkAccess(user: UserRecord, request: LoginRequest): string[] {
  if (user.revokedTimestamp !== null) throw new AccountRefusal('access_denied', 'user access has been revoked', user);
  const roles = request.roles.length > 0 ? request.roles : user.roles;
  if (!roles.every((r) => user.roles.includes(r))) throw new AccountRefusal('access_denied', 'invalid role', user);
  return roles;
}

export async function resolveAccount(
  ctx: RequestContext,
  ids: SocialIdentities,
  provider: string,
  profile: SocialProfile,
  request: LoginRequest,
): Promise<ResolvedAccount> {
  const email = normalizedEmail(ctx, profile.email);
  let user = await linkedUser(ctx, ids, provider, profile);
  user ??= await userWithSameEmail(ctx, ids, provider, profile, email);
  if (!user) return newUser(ctx, ids, provider, profile, email, request);
  const roles = checkAccess(user, request);
  if (!user.signupMethods.includes(provider)) {
    user = (await ctx.kernel.service('users').update(user.id, { signup_methods: [...user.signupMethods, provider] }))
      .after;
  }
  return { user, roles, created: false };
}
