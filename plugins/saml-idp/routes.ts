/** The IdP's HTTP routes under /saml/idp/{org_slug}/. */
import type { RawRoute } from '../../core/plugin.js';
import { continueRoute } from './continue-route.js';
import { metadataRoute } from './metadata-route.js';
import { sloRoutes } from './slo-routes.js';
import { ssoRoutes } from './sso-routes.js';

export const samlIdpRoutes: RawRoute[] = [metadataRoute, ...ssoRoutes, continueRoute, ...sloRoutes];
