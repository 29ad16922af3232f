/**
 * The JWT bearer grant (RFC 7523 §2.1 and §3.1) on POST /oauth/token: an assertion from a
 * trusted issuer is exchanged for an access token of the issuer's client's service account
 * (`service_account:<client_id>`, as a client-credentials token of POST /oauth/token).
 * The subject rules are those of client assertions: the issuer's `subject_claim` names the
 * client id or one of its `allowed_subjects`. Failures are `invalid_grant` (§3.1).
 */
import { randomUUID } from 'node:crypto';
import { OAuthError, type GrantHandler } from '../oauth-server/index.js';
import type { OAuthClient } from '../client-registry/index.js';
import { acceptAssertion, claimedIssuer, type AssertionDeps, type Candidate } from './assertion.js';

export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';

const invalidGrant = (message: string) => new OAuthError('invalid_grant', message);

function scopesFor(client: OAuthClient, requested: string | undefined): string[] {
  const asked = [...new Set((requested ?? '').split(' ').filter(Boolean))];
  const refused = asked.filter((s) => !client.allowedScopes.includes(s));
  if (refused.length > 0)
    throw new OAuthError('invalid_scope', `scope not allowed for this client: ${refused.join(' ')}`);
  return asked;
}

/** RFC 8707 §2: an absolute URI without a fragment. */
function resourceOf(resource: string | undefined): string | undefined {
  if (resource === undefined) return undefined;
  if (!URL.canParse(resource) || resource.includes('#'))
    throw new OAuthError('invalid_target', 'resource must be an absolute URI without a fragment');
  return resource;
}

export function jwtBearerGrant(
  deps: AssertionDeps & { clientById(id: string): Promise<OAuthClient | null> },
): GrantHandler {
  return async ({ ctx, params, caller }) => {
    const assertion = params.assertion;
    if (!assertion) throw new OAuthError('invalid_request', 'assertion is required');
    const claimed = claimedIssuer(assertion);
    if (!claimed) throw invalidGrant('assertion is malformed');
    const scopeParam = params.scope;
    const resource = resourceOf(params.resource);

    const candidates: Candidate[] = [];
    for (const issuer of await deps.store.activeByIssuer(claimed.iss)) {
      const client = await deps.clientById(issuer.serviceAccountId);
      if (!client || !client.isActive) continue;
      // §3.1: an authenticated client may only use the issuers it owns.
      if (caller.authenticated && caller.client.id !== client.id) continue;
      candidates.push({ issuer, client });
    }
    const outcome = await acceptAssertion(ctx, deps, candidates, assertion);
    if ('error' in outcome) throw invalidGrant(outcome.error);

    const client = outcome.client;
    const scopes = scopesFor(client, scopeParam);
    const tokens = ctx.kernel.service('tokens');
    const signed = await tokens.sign(
      {
        sub: `service_account:${client.clientId}`,
        aud: resource ?? client.clientId,
        client_id: client.clientId,
        scope: scopes.join(' '),
        token_type: 'access_token',
        jti: randomUUID(),
      },
      tokens.accessTtlSeconds,
    );
    if (!signed.token) throw new OAuthError('server_error', 'token could not be issued', 500);
    return {
      access_token: signed.token,
      token_type: 'Bearer',
      // As the client-credentials grant: the token's own `exp`.
      expires_in: signed.expiresAt,
      scope: scopes.join(' '),
    };
  };
}
