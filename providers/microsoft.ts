/**
 * Microsoft (Entra ID, v2.0 endpoint): an OpenID Connect issuer per tenant. `--microsoft-tenant-id`
 * is `common` (any work or personal account), `organizations`, `consumers`, or one tenant's id or
 * domain. Beyond openid-client's checks (signature, audience, nonce, and for the multi-tenant
 * issuers `iss` against the `tid` claim), the token's tenant must be one the setting admits and
 * `iss` must name that tenant. Entra's `email` claim is not proven to belong to the user unless
 * the domain owner vouches for it (`xms_edov`), so only then is it verified.
 */
import type { Config } from '../core/config.js';
import { claimTrue, defineProvider, ProviderError } from './kit.js';
import { oidcProfile } from './oidc-profile.js';

/** The tenant of personal Microsoft accounts (Microsoft identity platform documentation). */
const CONSUMERS_TENANT = '9188040d-6c67-4c5b-b112-36a304b66dad';
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const tenantOf = (config: Config): string => config.string('microsoft-tenant-id') || 'common';

export const microsoftProvider = defineProvider({
  name: 'microsoft',
  label: 'Microsoft',
  issuer: (config) => `https://login.microsoftonline.com/${encodeURIComponent(tenantOf(config))}/v2.0`,
  scopes: ['openid', 'email', 'profile'],
  pkce: true,
  // The claims come in the ID token; Entra's UserInfo lives on Microsoft Graph.
  userinfo: false,
  flags: [
    {
      name: 'microsoft-tenant-id',
      type: 'string',
      default: 'common',
      description: 'Microsoft tenant: common, organizations, consumers, or a tenant id or domain.',
    },
  ],
  checkClaims(claims, config) {
    const tid = claims.tid;
    if (typeof tid !== 'string' || !GUID.test(tid))
      throw new ProviderError('missing_tenant', 'the Microsoft ID token names no tenant');
    const tenant = tenantOf(config).toLowerCase();
    const admitted =
      tenant === 'common' ||
      (tenant === 'consumers' && tid === CONSUMERS_TENANT) ||
      (tenant === 'organizations' && tid !== CONSUMERS_TENANT) ||
      (GUID.test(tenant) && tid.toLowerCase() === tenant) ||
      (!GUID.test(tenant) && !['consumers', 'organizations'].includes(tenant));
    if (!admitted)
      throw new ProviderError('wrong_tenant', 'the Microsoft account belongs to a tenant that is not admitted');
    if (!claims.iss.split('/').includes(tid))
      throw new ProviderError('wrong_issuer', "the Microsoft ID token's issuer does not name its tenant");
  },
  profile(input) {
    const profile = oidcProfile(input);
    const claims = (input.claims ?? {}) as Record<string, unknown>;
    profile.emailVerified =
      profile.email !== undefined && (claimTrue(claims, 'xms_edov') || claimTrue(claims, 'email_verified'));
    return profile;
  },
});
