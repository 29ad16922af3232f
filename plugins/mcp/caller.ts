/**
 * Who calls /mcp: only a bearer token whose audience is exactly
 * `{url}/mcp`: a user's access token (its originating session still alive) or a service
 * account's client-credentials token (its client still active). Cookies and the admin secret do
 * not count here, and a token for any other audience is refused.
 */
import type { Principal, RequestContext } from '../../core/context.js';
import { delegatedPrincipal, mcpAudience } from '../tokens/index.js';

const PRINCIPAL = 'mcp.principal';

/** The principal the /mcp route recognised, kept for the kernel's access check of the tool's operation. */
export function mcpPrincipal(ctx: RequestContext): Principal | null {
  if (ctx.transport !== 'mcp') return null;
  return (ctx.locals.get(PRINCIPAL) as Principal | undefined) ?? null;
}

export async function recognise(ctx: RequestContext, bearer: string): Promise<Principal | null> {
  const kernel = ctx.kernel;
  const audience = mcpAudience(kernel.config.string('url', ''));
  const tokens = kernel.service('tokens');
  const verified = await tokens.verifyAccessToken(bearer, { audience });
  let principal: Principal | null = null;
  if (verified) {
    const scope = verified.claims.scope;
    const roles = verified.claims[tokens.roleClaim];
    principal = {
      kind: 'user',
      subject: `user:${verified.userId}`,
      userId: verified.userId,
      sessionId: verified.session.id,
      scopes: typeof scope === 'string' ? scope.split(' ').filter(Boolean) : verified.session.scopes,
      roles: Array.isArray(roles) ? roles.filter((r): r is string => typeof r === 'string') : verified.session.roles,
      claims: verified.claims,
    };
    if (verified.session.clientId) principal.clientId = verified.session.clientId;
    principal = delegatedPrincipal(principal);
  } else {
    const service = await kernel.service('oauth-server').verifyServiceToken(bearer);
    const aud = service?.aud;
    if (service && (aud === audience || (Array.isArray(aud) && aud.length === 1 && aud[0] === audience))) {
      principal = {
        kind: 'service',
        subject: String(service.sub),
        clientId: String(service.client_id ?? ''),
        scopes: typeof service.scope === 'string' ? service.scope.split(' ').filter(Boolean) : [],
        claims: service as Record<string, unknown>,
      };
    }
  }
  if (principal) ctx.locals.set(PRINCIPAL, principal);
  return principal;
}
