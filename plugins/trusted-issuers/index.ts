/**
 * The `trusted-issuers` plugin: external issuers trusted to authenticate a client with signed
 * assertions (RFC 7523 `private_key_jwt`), their admin API, and the assertion check the OAuth
 * server's client authentication asks for (docs/trusted-issuers.md).
 */
import { ServiceError, invalidArgument } from '../../core/errors.js';
import { definePlugin } from '../../core/plugin.js';
import type { ClientAssertionVerifier } from '../oauth-server/index.js';
import { ASSERTION_ALGORITHMS, authenticateAssertion } from './assertion.js';
import { TrustedIssuerEntity } from './entities.js';
import { createKeySets } from './key-sets.js';
import { JWT_BEARER_GRANT, jwtBearerGrant } from './jwt-bearer-grant.js';
import { trustedIssuerOperations } from './operations.js';
import { createTrustedIssuerStore, type TrustedIssuerStore } from './service.js';

export type { TrustedIssuerRecord, TrustedIssuerStore } from './service.js';
export { JWT_BEARER_ASSERTION_TYPE } from './assertion.js';
export { JWT_BEARER_GRANT } from './jwt-bearer-grant.js';

export interface TrustedIssuersService extends ClientAssertionVerifier {
  readonly store: TrustedIssuerStore;
}

declare module '../../core/services.js' {
  interface Services {
    'trusted-issuers': TrustedIssuersService;
  }
}

export const trustedIssuersPlugin = definePlugin<TrustedIssuersService>({
  name: 'trusted-issuers',
  description: 'Trusted issuers: RFC 7523 private_key_jwt client assertions verified against their JWKS.',
  dependsOn: ['client-registry', 'oauth-server', 'outbound', 'tokens'],
  entities: [TrustedIssuerEntity],
  operations: trustedIssuerOperations,
  setup(ctx) {
    const registry = ctx.service('client-registry');
    const clientExists = async (id: string): Promise<boolean> => {
      try {
        await registry.get(id);
        return true;
      } catch (err) {
        if (err instanceof ServiceError && err.code === 'not_found') return false;
        throw err;
      }
    };
    // A self-registered client is public (RFC 7591, no credentials): it gets no issuer either.
    const checkOwner = async (id: string): Promise<void> => {
      if ((await registry.get(id)).selfRegistered)
        throw invalidArgument('a self-registered client cannot have trusted issuers');
    };
    const store = createTrustedIssuerStore(ctx.storage, ctx.config, checkOwner);
    // delete_client cascades to the client's trusted issuers.
    ctx.hooks.on('client.deleted', async ({ id }) => {
      await store.removeOfClient(id);
    });
    const keySets = createKeySets(ctx.service('outbound').guardedFetch);
    const deps = { store, keySets, findClient: (clientId: string) => registry.findByClientId(clientId) };
    const clientById = async (id: string) => ((await clientExists(id)) ? registry.get(id) : null);
    ctx.service('oauth-server').registerGrant(JWT_BEARER_GRANT, jwtBearerGrant({ ...deps, clientById }), {
      clientOptional: true,
    });
    return {
      store,
      assertionAlgorithms: ASSERTION_ALGORITHMS,
      authenticateClient: (rctx, input) => authenticateAssertion(rctx, deps, input),
    };
  },
});
