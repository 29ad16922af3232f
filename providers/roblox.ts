/** Roblox: an OpenID Connect issuer (https://create.roblox.com/docs/cloud/open-cloud/oauth2-overview). Roblox shares no email. */
import { defineProvider } from './kit.js';
import { oidcProfile } from './oidc-profile.js';

export const robloxProvider = defineProvider({
  name: 'roblox',
  label: 'Roblox',
  issuer: 'https://apis.roblox.com/oauth/',
  scopes: ['openid', 'profile'],
  pkce: true,
  profile: oidcProfile,
});
