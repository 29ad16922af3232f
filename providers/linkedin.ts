/** LinkedIn: "Sign In with LinkedIn using OpenID Connect" (issuer https://www.linkedin.com/oauth). */
import { defineProvider } from './kit.js';
import { oidcProfile } from './oidc-profile.js';

export const linkedinProvider = defineProvider({
  name: 'linkedin',
  label: 'LinkedIn',
  issuer: 'https://www.linkedin.com/oauth',
  scopes: ['openid', 'profile', 'email'],
  // LinkedIn offers PKCE to native clients only; a web client is confidential.
  pkce: false,
  profile: oidcProfile,
});
