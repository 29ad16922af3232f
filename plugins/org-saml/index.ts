/**
 * The `org-saml` plugin: organization SAML connections with Latchkey as the service provider. The
 * four admin operations; SP metadata, the SP-initiated login (HTTP-Redirect AuthnRequest) and the
 * assertion consumer service under /oauth/saml/{org_slug}/ on @node-saml/node-saml; just-in-time
 * users joined to the organization. An active connection is offered to home realm discovery
 * through the `org-sso` service; an organization's deletion removes its connection in the same
 * transaction.
 */
import { definePlugin } from '../../core/plugin.js';
import { acsRoutes } from './acs-route.js';
import { createSamlConnections, type SamlConnections } from './connections.js';
import { SamlConnectionEntity } from './entities.js';
import { loginRoute } from './login-route.js';
import { metadataRoute } from './metadata-route.js';
import { samlConnectionOperations } from './operations.js';
import { loginPathOf } from './paths.js';

export type { SamlConnection, SamlConnections, AttributeMapping } from './connections.js';
export { providerOf } from './acs-route.js';

export interface OrgSamlService {
  readonly connections: SamlConnections;
  /** Whether an email domain is one the organization has verified (its IdP speaks for it). */
  isOrganizationDomain(orgId: string, domain: string): Promise<boolean>;
}

declare module '../../core/services.js' {
  interface Services {
    'org-saml': OrgSamlService;
  }
}

export const orgSamlPlugin = definePlugin<OrgSamlService>({
  name: 'org-saml',
  description: 'Organization SAML connections (Latchkey as SP) at /oauth/saml/{org_slug}/login, /metadata and /acs.',
  dependsOn: ['organizations', 'social', 'org-sso'],
  entities: [SamlConnectionEntity],
  operations: samlConnectionOperations,
  routes: [metadataRoute, loginRoute, ...acsRoutes],
  setup(ctx) {
    const connections = createSamlConnections(ctx.storage);
    const organizations = ctx.service('organizations');
    ctx.hooks.on('organization.deleting', ({ organization, em }) => connections.removeForOrg(organization.id, em));
    // Org discovery: an active SAML connection is offered (and wins over an OIDC one).
    ctx.service('org-sso').addSource(async (orgId) => {
      const c = await connections.byOrg(orgId);
      const org = c?.isActive ? await organizations.get(orgId) : null;
      return c && org ? [{ type: 'saml', login_url: loginPathOf(org.name) }] : [];
    });
    return {
      connections,
      async isOrganizationDomain(orgId, domain) {
        const domains = ctx.optionalService('org-domains');
        const name = domains?.normalize(domain);
        const record = name ? await domains!.get(name) : null;
        return record?.orgId === orgId;
      },
    };
  },
});
