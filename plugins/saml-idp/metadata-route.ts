/** `GET /saml/idp/{org_slug}/metadata`: the organization's IdP metadata, every published signing key in it. */
import type { RequestContext } from '../../core/context.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import { idpMetadata } from './idp-entity.js';
import { organizationOf } from './organization-of.js';
import { errorPage } from './pages.js';
import { idpEndpointsOf, METADATA_PATH } from './paths.js';

async function metadata(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const org = await organizationOf(ctx, req.path);
  if (!org) return errorPage(404, 'not_found', 'no SAML identity provider for this organization');
  // The first service provider made the first key; an organization without one has no IdP yet.
  const published = await ctx.kernel.service('saml-idp').keys.published(org.id);
  if (published.length === 0) return errorPage(404, 'not_found', 'no SAML identity provider for this organization');
  const config = ctx.kernel.config;
  return {
    status: 200,
    headers: { 'content-type': 'application/samlmetadata+xml; charset=utf-8', 'cache-control': 'no-cache' },
    body: idpMetadata(idpEndpointsOf(config, org.name), published),
  };
}

export const metadataRoute: RawRoute = { method: 'GET', path: METADATA_PATH, handler: metadata };
