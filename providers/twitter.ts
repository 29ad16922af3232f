/**
 * X (Twitter): OAuth 2.0 with PKCE (required by X) and GET /2/users/me. X reports an address
 * only as `confirmed_email`, with the `users.email` scope: it is used when present and verified
 * by X's word; without it the account has no email.
 */
import { asObject, defineProvider, optionalString, requireId } from './kit.js';
import type { SocialProfile } from './kit.js';

export const twitterProvider = defineProvider({
  name: 'twitter',
  label: 'X (Twitter)',
  endpoints: {
    authorization: 'https://x.com/i/oauth2/authorize',
    token: 'https://api.x.com/2/oauth2/token',
    me: 'https://api.x.com/2/users/me',
  },
  scopes: ['users.read', 'tweet.read', 'users.email'],
  pkce: true,
  // X authenticates confidential clients with HTTP Basic only.
  tokenAuth: 'basic',
  async profile({ api }) {
    const answer = asObject(await api('me', { query: { 'user.fields': 'profile_image_url,confirmed_email' } }), 'me');
    const user = asObject(answer.data, 'me');
    const email = optionalString(user, 'confirmed_email');
    const profile: SocialProfile = { subject: requireId(user, 'id', 'me'), emailVerified: email !== undefined };
    if (email) profile.email = email;
    const name = optionalString(user, 'name');
    if (name) profile.givenName = name;
    const username = optionalString(user, 'username');
    if (username) profile.nickname = profile.preferredUsername = username;
    const picture = optionalString(user, 'profile_image_url');
    if (picture) profile.picture = picture;
    return profile;
  },
});
