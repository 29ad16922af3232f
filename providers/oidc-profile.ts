/**
 * The profile of an OpenID Connect provider: the verified ID token's claims, completed by the
 * UserInfo answer (which openid-client has checked carries the same `sub`, OIDC Core §5.3.2).
 * The email counts as verified only when `email_verified` says so (OIDC Core §5.1).
 */
import { claimTrue, optionalString } from './fetch-json.js';
import type { JsonObject, ProfileInput, SocialProfile } from './kit-types.js';

export function oidcProfile({ claims, userinfo }: Pick<ProfileInput, 'claims' | 'userinfo'>): SocialProfile {
  const c = (claims ?? {}) as JsonObject;
  const pick = (field: string): string | undefined => optionalString(userinfo, field) ?? optionalString(c, field);
  const email = pick('email');
  const verified =
    userinfo && 'email_verified' in userinfo ? claimTrue(userinfo, 'email_verified') : claimTrue(c, 'email_verified');
  const profile: SocialProfile = { subject: String(c.sub ?? ''), emailVerified: email !== undefined && verified };
  if (email) profile.email = email;
  const given = pick('given_name') ?? pick('name');
  if (given) profile.givenName = given;
  const family = pick('family_name');
  if (family) profile.familyName = family;
  const nickname = pick('nickname');
  if (nickname) profile.nickname = nickname;
  const username = pick('preferred_username');
  if (username) profile.preferredUsername = username;
  const picture = pick('picture');
  if (picture) profile.picture = picture;
  return profile;
}
