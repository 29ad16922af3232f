/**
 * Facebook Login: plain OAuth 2.0 with the Graph API (GET /me). Graph returns an address without
 * saying it was confirmed, so it is never taken as verified: it names a new account but never
 * links an existing one.
 */
import { asObject, defineProvider, optionalString, requireId } from './kit.js';
import type { SocialProfile } from './kit.js';

export const facebookProvider = defineProvider({
  name: 'facebook',
  label: 'Facebook',
  endpoints: {
    authorization: 'https://www.facebook.com/v19.0/dialog/oauth',
    token: 'https://graph.facebook.com/v19.0/oauth/access_token',
    me: 'https://graph.facebook.com/v19.0/me',
  },
  scopes: ['public_profile', 'email'],
  scopeSeparator: ',',
  pkce: false,
  async profile({ api }) {
    const me = asObject(await api('me', { query: { fields: 'id,name,first_name,last_name,email,picture' } }), 'me');
    const email = optionalString(me, 'email');
    const profile: SocialProfile = { subject: requireId(me, 'id', 'me'), emailVerified: false };
    if (email) profile.email = email;
    const given = optionalString(me, 'first_name') ?? optionalString(me, 'name');
    if (given) profile.givenName = given;
    const family = optionalString(me, 'last_name');
    if (family) profile.familyName = family;
    const picture = me.picture && typeof me.picture === 'object' ? (me.picture as { data?: unknown }).data : undefined;
    const url = optionalString(
      picture && typeof picture === 'object' ? (picture as Record<string, unknown>) : undefined,
      'url',
    );
    if (url) profile.picture = url;
    return profile;
  },
});
