/**
 * The `org-sso` plugin: per-organization single sign-on. Organization OIDC connections (the four
 * admin operations; the upstream secret sealed with --encryption-key) and the broker routes
 * /oauth/oidc/{org_slug}/login and /callback on openid-client. Home realm discovery asks its
 * service for an organization's active connections; an organization's deletion removes its
 * connection in the same transaction.
 */
import type * as oidc from 'openid-client';
import { definePlugin } from '../../core/plugin.js';
import type { DiscoveredConnection, OrgSsoConnectionSource } from '../org-discovery/index.js';
import { brokerRoutes } from './broker.js';
import { createOidcConnections, type OidcConnection, type OidcConnections } from './connections.js';
import { OidcConnectionEntity } from './entities.js';
import { oidcConnectionOperations } from './operations.js';
import { loginPathOf } from './paths.js';
import { createRelyingParties } from './relying-party.js';

export type { OidcConnection, OidcConnections } from './connections.js';
export { providerOf } from './broker.js';
export { checkedUrl, loopbackHttp } from './issuer-url.js';
export { orgLoginOf } from './org-login.js';

export interface OrgSsoService extends OrgSsoConnectionSource {
  readonly connections: OidcConnections;
  /** The openid-client configuration of a connection (discovered once, kept until the connection changes). */
  relyingParty(connection: OidcConnection): Promise<oidc.Configuration>;
  /** Drops what is kept for a connection after it changed. */
  forget(connectionId: string): void;
  /** Another kind of connection (SAML) offers an organization's active connections to discovery. */
  addSource(source: (orgId: string) => Promise<DiscoveredConnection[]>): void;
}

declare module '../../core/services.js' {
  interface Services {
    'org-sso': OrgSsoService;
  }
}

export const orgSsoPlugin = definePlugin<OrgSsoService>({
  name: 'org-sso',
  description: 'Per-organization single sign-on: OIDC connections and the broker at /oauth/oidc/{org_slug}/login.',
  dependsOn: ['organizations', 'social', 'keys', 'outbound'],
  entities: [OidcConnectionEntity],
  operations: oidcConnectionOperations,
  routes: brokerRoutes,
  setup(ctx) {
    const connections = createOidcConnections(ctx.storage, ctx.service('keys'));
    const parties = createRelyingParties(connections, ctx.service('outbound'));
    const organizations = ctx.service('organizations');
    ctx.hooks.on('organization.deleting', ({ organization, em }) => connections.removeForOrg(organization.id, em));
    const sources: ((orgId: string) => Promise<DiscoveredConnection[]>)[] = [];
    return {
      connections,
      relyingParty: (c) => parties.of(c),
      forget: (id) => parties.forget(id),
      addSource: (source) => void sources.push(source),
      async activeConnections(orgId) {
        const c = await connections.byOrg(orgId);
        const org = c?.isActive ? await organizations.get(orgId) : null;
        const own: DiscoveredConnection[] = c && org ? [{ type: 'oidc', login_url: loginPathOf(org.name) }] : [];
        const others = await Promise.all(sources.map((source) => source(orgId)));
        return [...own, ...others.flat()];
      },
    };
  },
});
