/** The enabled organization a route's `{org_slug}` names, or null (unknown and disabled look alike). */
import type { RequestContext } from '../../core/context.js';
import type { Organization } from '../organizations/index.js';
import { slugOf } from './paths.js';

export async function organizationOf(ctx: RequestContext, path: string): Promise<Organization | null> {
  const slug = slugOf(path);
  const org = slug ? await ctx.kernel.service('organizations').getByName(slug) : null;
  return org && org.enabled ? org : null;
}
