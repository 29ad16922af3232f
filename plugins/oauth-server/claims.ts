/** Profile claims of a user, released by scope (OIDC Core §5.1, §5.4). */
import type { UserRecord } from '../users/index.js';
import { SCOPE_CLAIMS } from './scopes.js';

export function userClaims(user: UserRecord): Record<string, unknown> {
  return {
    given_name: user.givenName,
    family_name: user.familyName,
    middle_name: user.middleName,
    nickname: user.nickname,
    preferred_username: user.preferredUsername,
    gender: user.gender,
    birthdate: user.birthdate,
    picture: user.picture,
    updated_at: user.updatedAt,
    email: user.email,
    email_verified: user.email ? user.emailVerifiedAt !== null : undefined,
    phone_number: user.phoneNumber,
    phone_number_verified: user.phoneNumber ? user.phoneNumberVerifiedAt !== null : undefined,
  };
}

/** Only the claims the scopes release, and only those with a value. */
export function claimsForScopes(user: UserRecord, scopes: readonly string[]): Record<string, unknown> {
  const all = userClaims(user);
  const out: Record<string, unknown> = {};
  for (const scope of scopes) {
    for (const name of SCOPE_CLAIMS[scope] ?? []) {
      const v = all[name];
      if (v !== null && v !== undefined) out[name] = v;
    }
  }
  return out;
}
