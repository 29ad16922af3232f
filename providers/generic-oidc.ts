/**
 * Any OpenID Connect provider by its issuer URL (Keycloak, Okta, Auth0, Authentik, ...):
 * `--oidc-issuer-url`, `--oidc-client-id`, `--oidc-client-secret`, and the button's text from
 * `--oidc-display-name`. Everything else comes from the issuer's discovery document.
 */
import { defineProvider } from './kit.js';
import { oidcProfile } from './oidc-profile.js';

export const genericOidcProvider = defineProvider({
  name: 'oidc',
  title: 'Generic OpenID Connect',
  label: (config) => config.string('oidc-display-name') || 'Single sign-on',
  issuer: (config) => config.string('oidc-issuer-url') ?? '',
  scopes: ['openid', 'email', 'profile'],
  pkce: true,
  flags: [{ name: 'oidc-display-name', type: 'string', description: 'Text of the generic OpenID Connect button.' }],
  validateConfig: (config) =>
    config.has('oidc-issuer-url') ? undefined : '--oidc-issuer-url is required with --oidc-client-id',
  profile: oidcProfile,
});
