/**
 * `magic_link_login`: mails a single-use sign-in link (15 minutes) to the address, creating the
 * account first when it has none and `--enable-signup` allows it. The link goes to
 * `/verify_email` (where authorizer's clients send it), and redeeming it signs in with the roles
 * and scopes asked for here (redeem.ts).
 */
import type { RequestContext } from '../../core/context.js';
import { invalidArgument, permissionDenied } from '../../core/errors.js';
import { checkedRedirect, serviceLink, type LinkTokens } from '../email/index.js';
import type { UserRecord } from '../users/index.js';

export const MAGIC_LINK_TTL_MS = 15 * 60 * 1000;
export const MAGIC_LINK_SENT = 'Magic Link has been sent to your email. Please check your inbox!';
export const MAGIC_LINK_METHOD = 'magic_link_login';
const DEFAULT_SCOPES = ['openid', 'email', 'profile'];

/** What a magic link stands for, stored under its token's digest. */
export interface MagicLinkGrant {
  userId: string;
  email: string;
  roles: string[];
  scopes: string[];
  state: string | null;
  redirectUri: string | null;
}

export interface MagicLinkInput {
  email: string;
  roles?: string[];
  scope?: string[];
  state?: string;
  redirect_uri?: string;
}

function scopesOf(scope: readonly string[] | undefined): string[] {
  if (!scope || scope.length === 0) return [...DEFAULT_SCOPES];
  for (const s of scope)
    if (!/^[\x21\x23-\x5B\x5D-\x7E]{1,128}$/.test(s)) throw invalidArgument(`invalid scope "${s.slice(0, 40)}"`);
  return [...new Set(scope)];
}

/** Roles of a new account: from `--roles`, never a protected one; `--default-roles` when none asked. */
function newAccountRoles(ctx: RequestContext, wanted: readonly string[] | undefined): string[] {
  const { roles } = ctx.kernel.service('users');
  if (!wanted || wanted.length === 0) return [...roles.defaults];
  for (const r of wanted)
    if (!roles.allowed.includes(r) || roles.protected.includes(r)) throw invalidArgument('invalid roles');
  return [...new Set(wanted)];
}

export async function requestMagicLink(
  ctx: RequestContext,
  input: MagicLinkInput,
  tokens: LinkTokens<MagicLinkGrant>,
): Promise<{ message: string }> {
  const { config } = ctx.kernel;
  const users = ctx.kernel.service('users');
  const email = ctx.kernel.service('email');
  if (!config.bool('enable-magic-link-login')) throw permissionDenied('magic link login is disabled for this instance');
  const address = users.normalizeEmail(input.email);
  const scopes = scopesOf(input.scope);
  const redirectUri = await checkedRedirect(ctx, input.redirect_uri);
  await email.checkSendLimit(ctx, address);
  let user: UserRecord | null = await users.findByEmail(address);
  let roles: string[];
  if (!user) {
    if (!config.bool('enable-signup', true)) throw permissionDenied('signup is disabled for this instance');
    roles = newAccountRoles(ctx, input.roles);
    user = await users.create(
      { email: address, signup_method: MAGIC_LINK_METHOD, roles },
      {
        // The account's events are stored by the commit that stores it (transactional outbox).
        within: async (unit, created) => {
          const dto = users.toUserDto(created);
          await ctx.kernel.events.emitWithin(unit, 'user.created', { user: dto, auth_recipe: MAGIC_LINK_METHOD });
          await ctx.kernel.events.emitWithin(unit, 'user.signup', { user: dto, auth_recipe: MAGIC_LINK_METHOD });
        },
      },
    );
  } else {
    if (user.revokedTimestamp !== null) throw permissionDenied('user access has been revoked');
    roles = input.roles && input.roles.length > 0 ? [...new Set(input.roles)] : user.roles;
    if (!roles.every((r) => user!.roles.includes(r))) throw permissionDenied('invalid role');
  }
  const token = await tokens.issue(
    { userId: user.id, email: address, roles, scopes, state: input.state ?? null, redirectUri: redirectUri ?? null },
    MAGIC_LINK_TTL_MS,
  );
  const name = [user.givenName, user.familyName].filter(Boolean).join(' ');
  await email.send({
    event: 'magic_link_login',
    to: address,
    data: {
      link: serviceLink(ctx, '/verify_email', { token, redirect_uri: redirectUri, state: input.state }),
      ...(name ? { name } : {}),
    },
  });
  return { message: MAGIC_LINK_SENT };
}
