/** Scope and resource rules shared by /authorize and the token endpoint. */
import type { OAuthClient } from '../client-registry/index.js';
import { OAuthError, invalidRequest } from './errors.js';
import { SUPPORTED_SCOPES } from './scopes.js';

/**
 * The scopes granted: the requested ones (or the defaults), each allowed for the client. A
 * registered client may use its `allowed_scopes` and nothing else (an empty list allows
 * nothing, not every scope); the built-in client the supported set.
 */
export function grantScopes(client: OAuthClient, requested: string[], defaults: string[]): string[] {
  const asked = requested.length > 0 ? requested : defaults;
  const allowed = client.builtIn ? SUPPORTED_SCOPES : client.allowedScopes;
  const refused = asked.filter((s) => !allowed.includes(s));
  if (refused.length > 0)
    throw new OAuthError('invalid_scope', `scope not allowed for this client: ${refused.join(' ')}`);
  return asked;
}

/** RFC 8707 §2: an absolute URI without a fragment. */
export function checkResource(resource: string | undefined): string | undefined {
  if (resource === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(resource);
  } catch {
    throw new OAuthError('invalid_target', 'resource must be an absolute URI');
  }
  if (url.hash || resource.includes('#'))
    throw new OAuthError('invalid_target', 'resource must not contain a fragment');
  return resource;
}

export function requireParam(params: Record<string, string>, name: string): string {
  const v = params[name];
  if (!v) throw invalidRequest(`${name} is required`);
  return v;
}
