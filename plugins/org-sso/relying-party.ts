/**
 * The relying-party configuration of a connection, made with openid-client by OpenID Connect
 * discovery of the upstream issuer (its metadata and JWKS then check each ID token's signature,
 * issuer, audience and nonce). Requests go through the guarded outbound client, since the issuer
 * is an admin-supplied URL; openid-client's `allowInsecureRequests` applies only to http on
 * loopback. Made once per connection and kept until the connection changes.
 */
import * as oidc from 'openid-client';
import type { OutboundService } from '../outbound/index.js';
import type { OidcConnection, OidcConnections } from './connections.js';
import { loopbackHttp } from './issuer-url.js';

const TIMEOUT_S = 10;

export interface RelyingParties {
  of(connection: OidcConnection): Promise<oidc.Configuration>;
  forget(connectionId: string): void;
}

export function createRelyingParties(connections: OidcConnections, outbound: OutboundService): RelyingParties {
  const made = new Map<string, Promise<oidc.Configuration>>();
  const build = async (c: OidcConnection): Promise<oidc.Configuration> => {
    const secret = await connections.secretOf(c.id);
    if (secret === null) throw new Error('the connection secret cannot be opened with this --encryption-key');
    const issuer = new URL(c.issuerUrl);
    return oidc.discovery(issuer, c.clientId, undefined, oidc.ClientSecretPost(secret), {
      timeout: TIMEOUT_S,
      [oidc.customFetch]: (url, options) =>
        outbound.guardedFetch(url, { ...options, body: options.body as BodyInit | null | undefined }),
      execute: [oidc.enableNonRepudiationChecks, ...(loopbackHttp(issuer) ? [oidc.allowInsecureRequests] : [])],
    });
  };
  return {
    of(c) {
      let p = made.get(c.id);
      if (!p) {
        p = build(c);
        made.set(c.id, p);
        // A failed discovery is not kept: the next login tries again once the issuer is back.
        p.catch(() => made.delete(c.id));
      }
      return p;
    },
    forget: (id) => void made.delete(id),
  };
}
