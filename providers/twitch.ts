/**
 * Twitch: OAuth 2.0 and the Helix API (GET /helix/users, which needs the app's Client-Id header).
 * Helix does not say whether the address is verified, so it never links an existing account.
 */
import { asObject, asObjectList, defineProvider, optionalString, requireId } from './kit.js';
import type { SocialProfile } from './kit.js';

export const twitchProvider = defineProvider({
  name: 'twitch',
  label: 'Twitch',
  endpoints: {
    authorization: 'https://id.twitch.tv/oauth2/authorize',
    token: 'https://id.twitch.tv/oauth2/token',
    users: 'https://api.twitch.tv/helix/users',
  },
  scopes: ['user:read:email'],
  pkce: false,
  async profile({ api, config }) {
    const answer = asObject(
      await api('users', { headers: { 'client-id': config.string('twitch-client-id') ?? '' } }),
      'users',
    );
    const [user] = asObjectList(answer.data, 'users');
    if (!user) return { subject: '', emailVerified: false };
    const email = optionalString(user, 'email');
    const profile: SocialProfile = { subject: requireId(user, 'id', 'users'), emailVerified: false };
    if (email) profile.email = email;
    const name = optionalString(user, 'display_name');
    if (name) profile.givenName = name;
    const login = optionalString(user, 'login');
    if (login) profile.nickname = profile.preferredUsername = login;
    const picture = optionalString(user, 'profile_image_url');
    if (picture) profile.picture = picture;
    return profile;
  },
});
