/**
 * The default distribution: the plugin list the `latchkey` binary serves. A custom build passes
 * its own list to `createServer({ plugins })`.
 */
import type { AnyPlugin } from '../core/plugin.js';
import { accountsPlugin } from './accounts/index.js';
import { adminPlugin } from './admin/index.js';
import { adminUsersPlugin } from './admin-users/index.js';
import { auditPlugin } from './audit/index.js';
import { webhooksPlugin } from './webhooks/index.js';
import { fgaPlugin } from './fga/index.js';
import { healthPlugin } from './health/index.js';
import { keysPlugin } from './keys/index.js';
import { mcpPlugin } from './mcp/index.js';
import { metaPlugin } from './meta/index.js';
import { emailPlugins } from './email/plugins.js';
import { mfaPlugins } from './mfa/plugins.js';
import { serverPlugin } from './server/index.js';
import { clientMetadataPlugin } from './client-metadata/index.js';
import { clientRegistrationPlugin } from './client-registration/index.js';
import { clientRegistryPlugin } from './client-registry/index.js';
import { loginPagePlugin } from './login-page/index.js';
import { oauthServerPlugin } from './oauth-server/index.js';
import { organizationPlugins } from './organizations/plugins.js';
import { orgSsoPlugin } from './org-sso/index.js';
import { orgSamlPlugin } from './org-saml/index.js';
import { samlIdpPlugin } from './saml-idp/index.js';
import { outboundPlugin } from './outbound/index.js';
import { phoneVerificationPlugin } from './phone-verification/index.js';
import { sessionsPlugin } from './sessions/index.js';
import { signInPlugin } from './sign-in/index.js';
import { smsPlugin } from './sms/index.js';
import { socialPlugins } from '../providers/index.js';
import { tokenExchangePlugin } from './token-exchange/index.js';
import { trustedIssuersPlugin } from './trusted-issuers/index.js';
import { tokensPlugin } from './tokens/index.js';
import { usersPlugin } from './users/index.js';

/** The plugins every build needs: the process, keys, admin authentication, health and meta. */
export const basePlugins: AnyPlugin[] = [
  serverPlugin,
  keysPlugin,
  adminPlugin,
  healthPlugin,
  metaPlugin,
  outboundPlugin,
];

/** Accounts: users, sessions, tokens, password login and admin user management. */
export const accountPlugins: AnyPlugin[] = [
  usersPlugin,
  sessionsPlugin,
  tokensPlugin,
  signInPlugin,
  accountsPlugin,
  adminUsersPlugin,
];

/** OAuth / OIDC: the client registry, the authorization server and the hosted login page. */
export const oauthPlugins: AnyPlugin[] = [clientRegistryPlugin, oauthServerPlugin, loginPagePlugin];

/** Fine-grained authorization (OpenFGA models and tuples). */
export const authorizationPlugins: AnyPlugin[] = [fgaPlugin];

/** The audit log: audited actions recorded and listed for admins. */
export const auditPlugins: AnyPlugin[] = [auditPlugin];

export const defaultPlugins: AnyPlugin[] = [
  ...basePlugins,
  ...accountPlugins,
  ...oauthPlugins,
  ...authorizationPlugins,
  ...auditPlugins,
  webhooksPlugin,
  ...emailPlugins,
  smsPlugin,
  phoneVerificationPlugin,
  ...mfaPlugins,
  ...socialPlugins,
  ...organizationPlugins,
  orgSsoPlugin,
  orgSamlPlugin,
  samlIdpPlugin,
  tokenExchangePlugin,
  trustedIssuersPlugin,
  clientRegistrationPlugin,
  clientMetadataPlugin,
  mcpPlugin,
];
