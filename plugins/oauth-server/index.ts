/**
 * The oauth-server plugin: an OAuth 2.0 / OpenID Connect authorization server (`/authorize`,
 * `/oauth/token`, `/userinfo`, discovery and the rest of the OAuth / OIDC endpoints). Users,
 * sessions and tokens come from the account services; clients from the client registry; keys from
 * the keys plugin.
 */
import type { JWTPayload } from 'jose';
import type { RequestContext } from '../../core/context.js';
import { definePlugin } from '../../core/plugin.js';
import { consentRoute } from './authorize/consent.js';
import { authorizeRoute } from './authorize/endpoint.js';
import { dashboardRoute } from './dashboard.js';
import { discoveryRoutes } from './discovery.js';
import { oauthServerFlags } from './flags.js';
import { introspectRoute } from './introspect.js';
import { logoutConfirmRoute, logoutRoute } from './logout.js';
import { revokeRoute } from './revoke.js';
import { verifyServiceToken } from './service-tokens.js';
import { authorizationCodeGrant } from './token/authorization-code.js';
import { clientCredentialsGrant } from './token/client-credentials.js';
import { tokenRoute } from './token/endpoint.js';
import { GrantRegistry, type GrantHandler, type GrantOptions } from './token/grants.js';
import { refreshTokenGrant } from './token/refresh-token.js';
import { userinfoRoutes } from './userinfo.js';

export type { GrantHandler, GrantOptions, GrantRequest, TokenResponse } from './token/grants.js';
export { OAuthError } from './errors.js';
export type { ClientAssertionVerifier } from './client-auth.js';

export interface OAuthServerService {
  /** Adds a grant type to POST /oauth/token (token exchange registers itself this way). */
  registerGrant(type: string, handler: GrantHandler, options?: GrantOptions): void;
  grantTypes(): string[];
  /** This kernel's grant registry (the token endpoint dispatches through it). */
  readonly grants: GrantRegistry;
  /**
   * A service account's client-credentials access token (signature, issuer, expiry, an active
   * client): its claims, or null. For resource surfaces that accept service accounts (/mcp).
   */
  verifyServiceToken(token: string): Promise<JWTPayload | null>;
}

declare module '../../core/services.js' {
  interface Services {
    'oauth-server': OAuthServerService;
  }
}

/** The grants every kernel starts with; others register through the service (token exchange). */
function builtInGrants(): GrantRegistry {
  const grants = new GrantRegistry();
  grants.register('authorization_code', authorizationCodeGrant);
  grants.register('refresh_token', refreshTokenGrant);
  grants.register('client_credentials', clientCredentialsGrant);
  return grants;
}

/** Each kernel has its own registry (two kernels in one process register their grants apart). */
const grantsOf = (ctx: RequestContext): GrantRegistry => ctx.kernel.service('oauth-server').grants;

export function createOAuthServerPlugin() {
  return definePlugin<OAuthServerService>({
    name: 'oauth-server',
    description:
      'OAuth 2.0 / OpenID Connect authorization server: /authorize, /oauth/token, userinfo, revocation, introspection, logout, discovery.',
    dependsOn: ['keys', 'client-registry', 'users', 'sessions', 'tokens'],
    flags: oauthServerFlags,
    routes: [
      ...discoveryRoutes((ctx) => grantsOf(ctx).types()),
      authorizeRoute,
      consentRoute,
      tokenRoute(grantsOf),
      ...userinfoRoutes,
      revokeRoute,
      introspectRoute,
      logoutRoute,
      logoutConfirmRoute,
      dashboardRoute,
    ],
    setup: (ctx) => {
      const grants = builtInGrants();
      return {
        grants,
        registerGrant: (type, handler, options) => grants.register(type, handler, options),
        grantTypes: () => grants.types(),
        verifyServiceToken: (token) => verifyServiceToken(ctx, token),
      };
    },
  });
}

export const oauthServerPlugin = createOAuthServerPlugin();
