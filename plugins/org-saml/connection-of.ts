/** The organization's active SAML connection for a slug, or null (an unknown slug and an inactive connection look alike). */
import type { RequestContext } from '../../core/context.js';
import type { SamlConnection } from './connections.js';

export const activeConnection = (ctx: RequestContext, slug: string): Promise<SamlConnection | null> =>
  ctx.kernel.service('organizations').activeRecordOf(slug, ctx.kernel.service('org-saml').connections);
