/** Discord: plain OAuth 2.0 with GET /users/@me, whose `verified` says whether the email is verified. */
import { asObject, defineProvider, optionalString, requireId } from './kit.js';
import type { SocialProfile } from './kit.js';

export const discordProvider = defineProvider({
  name: 'discord',
  label: 'Discord',
  endpoints: {
    authorization: 'https://discord.com/oauth2/authorize',
    token: 'https://discord.com/api/oauth2/token',
    user: 'https://discord.com/api/users/@me',
  },
  scopes: ['identify', 'email'],
  pkce: true,
  async profile({ api }) {
    const user = asObject(await api('user'), 'user');
    const id = requireId(user, 'id', 'user');
    const email = optionalString(user, 'email');
    const profile: SocialProfile = { subject: id, emailVerified: email !== undefined && user.verified === true };
    if (email) profile.email = email;
    const name = optionalString(user, 'global_name');
    if (name) profile.givenName = name;
    const username = optionalString(user, 'username');
    if (username) profile.nickname = profile.preferredUsername = username;
    const avatar = optionalString(user, 'avatar');
    if (avatar && /^[a-z0-9_]+$/i.test(avatar))
      profile.picture = `https://cdn.discordapp.com/avatars/${encodeURIComponent(id)}/${avatar}.png`;
    return profile;
  },
});
