/** Google: an OpenID Connect issuer (https://developers.google.com/identity/openid-connect/openid-connect). */
import { defineProvider } from './kit.js';
import { oidcProfile } from './oidc-profile.js';

export const googleProvider = defineProvider({
  name: 'google',
  label: 'Google',
  issuer: 'https://accounts.google.com',
  scopes: ['openid', 'email', 'profile'],
  pkce: true,
  profile: oidcProfile,
});
