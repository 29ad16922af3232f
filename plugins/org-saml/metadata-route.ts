/** `GET /oauth/saml/{org_slug}/metadata`: the SP's metadata (SAML Metadata §2.4.4) for the organization's IdP admin. */
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import type { RequestContext } from '../../core/context.js';
import { activeConnection } from './connection-of.js';
import { METADATA_PATH, slugOf } from './paths.js';
import { endpointsOf, serviceProviderOf } from './service-provider.js';

async function metadata(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const slug = slugOf(req.path);
  const connection = await activeConnection(ctx, slug);
  if (!connection)
    return ctx.kernel.service('social').errorPage(404, 'not_found', 'no SAML connection for this organization');
  const sp = serviceProviderOf(ctx.kernel.memory, connection, endpointsOf(ctx.kernel.config, connection, slug));
  return {
    status: 200,
    headers: { 'content-type': 'application/samlmetadata+xml; charset=utf-8', 'cache-control': 'no-cache' },
    body: sp.generateServiceProviderMetadata(null, null),
  };
}

export const metadataRoute: RawRoute = { method: 'GET', path: METADATA_PATH, handler: metadata };
