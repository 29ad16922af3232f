/** The broker's routes under `--url` ("An OIDC broker equivalent exists" beside /oauth/saml/{org_slug}/login). */
import type { Config } from '../../core/config.js';

export const LOGIN_PATH = '/oauth/oidc/:org_slug/login';
export const CALLBACK_PATH = '/oauth/oidc/:org_slug/callback';

const base = (config: Config) => config.string('url', '').replace(/\/+$/, '');

export const loginPathOf = (slug: string) => `/oauth/oidc/${encodeURIComponent(slug)}/login`;
export const callbackUrlOf = (config: Config, slug: string) =>
  `${base(config)}/oauth/oidc/${encodeURIComponent(slug)}/callback`;

/** The `{org_slug}` segment of a broker path. */
export function slugOf(path: string): string {
  const parts = path.split('/');
  try {
    return decodeURIComponent(parts[3] ?? '');
  } catch {
    return '';
  }
}
