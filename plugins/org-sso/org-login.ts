/**
 * The start an organization's single sign-on login shares, whatever the kind of its connection
 * (OIDC here, SAML in org-saml): the application's request, checked as /oauth_login checks it,
 * and the active connection of the enabled organization the path names.
 */
import type { RequestContext } from '../../core/context.js';
import type { RawResponse } from '../../core/plugin.js';
import type { LoginRequest } from '../social/index.js';

/** The request and the connection, or the response that refuses the login. */
export async function orgLoginOf<T extends { isActive: boolean }>(
  ctx: RequestContext,
  query: Record<string, string | undefined>,
  slug: string,
  connections: { byOrg(orgId: string): Promise<T | null> },
): Promise<{ request: LoginRequest; connection: T } | { refusal: RawResponse }> {
  const social = ctx.kernel.service('social');
  const parsed = await social.loginRequestOf(ctx, query);
  if ('refusal' in parsed) return parsed;
  const connection = await ctx.kernel.service('organizations').activeRecordOf(slug, connections);
  if (!connection)
    return {
      refusal: social.fail(parsed.request, 'invalid_request', 'no single sign-on connection for this organization'),
    };
  return { request: parsed.request, connection };
}
