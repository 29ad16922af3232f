/**
 * The `saml-idp` plugin: Latchkey as a SAML 2.0 identity provider for an organization's own
 * service providers. The nine admin operations (service providers, signing keys, SP metadata
 * import); the IdP metadata, SP-initiated single sign-on on the HTTP-Redirect and HTTP-POST
 * bindings and IdP-initiated single sign-on under /saml/idp/{org_slug}/, signing with samlify.
 * An organization's deletion removes its providers and keys in the same transaction.
 */
import { definePlugin } from '../../core/plugin.js';
import { IdpKeyEntity, ServiceProviderEntity } from './entities.js';
import { createIdpKeys, type IdpKeys } from './idp-keys.js';
import { keyOperations } from './key-operations.js';
import { providerOperations } from './provider-operations.js';
import { samlIdpRoutes } from './routes.js';
import { createServiceProviders, type ServiceProviders } from './service-providers.js';

export type { ServiceProvider, ServiceProviders, MappedAttribute } from './service-providers.js';
export type { IdpKey, IdpKeys } from './idp-keys.js';

export interface SamlIdpService {
  readonly providers: ServiceProviders;
  readonly keys: IdpKeys;
}

declare module '../../core/services.js' {
  interface Services {
    'saml-idp': SamlIdpService;
  }
}

export const samlIdpPlugin = definePlugin<SamlIdpService>({
  name: 'saml-idp',
  description: 'Latchkey as a SAML identity provider for organizations at /saml/idp/{org_slug}/metadata and /sso.',
  dependsOn: ['keys', 'users', 'sessions', 'organizations'],
  entities: [ServiceProviderEntity, IdpKeyEntity],
  operations: [...providerOperations, ...keyOperations],
  routes: samlIdpRoutes,
  setup(ctx) {
    const providers = createServiceProviders(ctx.storage);
    const keys = createIdpKeys(ctx.storage, ctx.service('keys'));
    ctx.hooks.on('organization.deleting', async ({ organization, em }) => {
      await providers.removeForOrg(organization.id, em);
      await keys.removeForOrg(organization.id, em);
    });
    return { providers, keys };
  },
});
