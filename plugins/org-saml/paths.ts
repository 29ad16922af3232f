/** The SP routes under `--url` (GET /oauth/saml/{org_slug}/login and the rest). */
import type { Config } from '../../core/config.js';

export const METADATA_PATH = '/oauth/saml/:org_slug/metadata';
export const LOGIN_PATH = '/oauth/saml/:org_slug/login';
export const ACS_PATH = '/oauth/saml/:org_slug/acs';

const base = (config: Config) => config.string('url', '').replace(/\/+$/, '');
const root = (config: Config, slug: string) => `${base(config)}/oauth/saml/${encodeURIComponent(slug)}`;

export const loginPathOf = (slug: string) => `/oauth/saml/${encodeURIComponent(slug)}/login`;
export const acsUrlOf = (config: Config, slug: string) => `${root(config, slug)}/acs`;
/** The SP's entity id by default: its metadata URL (SAML Metadata §2.3.2 suggests a resolvable URL). */
export const spEntityIdOf = (config: Config, slug: string) => `${root(config, slug)}/metadata`;

/** The `{org_slug}` segment of an SP path. */
export function slugOf(path: string): string {
  try {
    return decodeURIComponent(path.split('/')[3] ?? '');
  } catch {
    return '';
  }
}
