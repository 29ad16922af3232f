/**
 * GitHub: plain OAuth 2.0 with the REST API (GET /user, GET /user/emails). Only the primary
 * address, and only when GitHub has verified it, becomes the account's email; GitHub's numeric
 * user id is the subject (the login name can be changed and reused).
 */
import { asObject, asObjectList, defineProvider, optionalString, requireId } from './kit.js';
import type { SocialProfile } from './kit.js';

export const githubProvider = defineProvider({
  name: 'github',
  label: 'GitHub',
  endpoints: {
    authorization: 'https://github.com/login/oauth/authorize',
    token: 'https://github.com/login/oauth/access_token',
    user: 'https://api.github.com/user',
    emails: 'https://api.github.com/user/emails',
  },
  scopes: ['read:user', 'user:email'],
  pkce: true,
  async profile({ api }) {
    const user = asObject(await api('user'), 'user');
    const emails = asObjectList(await api('emails'), 'emails');
    const primary = emails.find((e) => e.primary === true && e.verified === true);
    const email = optionalString(primary, 'email');
    const profile: SocialProfile = { subject: requireId(user, 'id', 'user'), emailVerified: email !== undefined };
    if (email) profile.email = email;
    const name = optionalString(user, 'name');
    if (name) profile.givenName = name;
    const login = optionalString(user, 'login');
    if (login) profile.nickname = profile.preferredUsername = login;
    const avatar = optionalString(user, 'avatar_url');
    if (avatar) profile.picture = avatar;
    return profile;
  },
});
