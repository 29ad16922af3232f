/**
 * The IdP's routes under `--url`, per organization: the metadata URL is also the IdP's entity id
 * (SAML Metadata §2.3.2 suggests a resolvable URL).
 */
import type { Config } from '../../core/config.js';

export const METADATA_PATH = '/saml/idp/:org_slug/metadata';
/** SP-initiated single sign-on: HTTP-Redirect (GET) and HTTP-POST (POST) bindings. */
export const SSO_PATH = '/saml/idp/:org_slug/sso';
/** Where the browser continues, with a session, to receive the Response for a checked request. */
export const CONTINUE_PATH = '/saml/idp/:org_slug/continue';
/** SP-initiated single logout: HTTP-Redirect (GET) and HTTP-POST (POST) bindings. */
export const SLO_PATH = '/saml/idp/:org_slug/slo';
/** IdP-initiated single sign-on: `?sp=<entity id>&RelayState=…`. */
export const INITIATE_PATH = '/saml/idp/:org_slug/initiate';

const base = (config: Config) => config.string('url', '').replace(/\/+$/, '');
const pathOf = (slug: string, leaf: string) => `/saml/idp/${encodeURIComponent(slug)}/${leaf}`;

export const idpEntityIdOf = (config: Config, slug: string) => `${base(config)}${pathOf(slug, 'metadata')}`;
export const ssoUrlOf = (config: Config, slug: string) => `${base(config)}${pathOf(slug, 'sso')}`;
export const sloUrlOf = (config: Config, slug: string) => `${base(config)}${pathOf(slug, 'slo')}`;
/** The IdP's entity id and service URLs of an organization. */
export const idpEndpointsOf = (config: Config, slug: string) => ({
  entityId: idpEntityIdOf(config, slug),
  ssoUrl: ssoUrlOf(config, slug),
  sloUrl: sloUrlOf(config, slug),
});
export const continuePathOf = (slug: string) => pathOf(slug, 'continue');

/** The `{org_slug}` segment of an IdP path. */
export function slugOf(path: string): string {
  try {
    return decodeURIComponent(path.split('/')[3] ?? '');
  } catch {
    return '';
  }
}

/** The CN of an organization's signing certificates. */
export const commonNameOf = (slug: string) => `Latchkey SAML IdP ${slug}`;
