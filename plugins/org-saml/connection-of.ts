/** The organization's active SAML connection for a slug, or null (an unknown slug and an inactive connection look alike). */
import type { RequestContext } from '../../core/context.js';
import type { SamlConnection } from './connections.js';

export async function activeConnection(ctx: RequestContext, slug: string): Promise<SamlConnection | null> {
  const org = slug ? await ctx.kernel.service('organizations').getByName(slug) : null;
  if (!org || !org.enabled) return null;
  const connection = await ctx.kernel.service('org-saml').connections.byOrg(org.id);
  return connection && connection.isActive ? connection : null;
}
