/**
 * The MCP resource's identity: `{scheme+host of --url}/mcp`, the
 * only audience accepted at /mcp, and its RFC 9728 protected resource metadata document.
 */
import { mcpAudience } from '../tokens/index.js';

export const MCP_PATH = '/mcp';
export const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

export function origin(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}`;
}

/** RFC 9728 §2 protected resource metadata: `resource`, `authorization_servers` and the rest below. */
export function protectedResourceMetadata(url: string): Record<string, unknown> {
  const base = origin(url);
  return {
    resource: mcpAudience(url),
    authorization_servers: [base],
    bearer_methods_supported: ['header'],
    scopes_supported: ['openid', 'email', 'profile', 'phone', 'offline_access'],
    jwks_uri: `${base}/.well-known/jwks.json`,
    resource_documentation: `${base}/reference`,
  };
}

/**
 * RFC 9728 §5.1 / RFC 6750 §3: the challenge of a 401 at /mcp names the metadata document, and
 * `invalid_token` when a token was presented but is not valid here.
 */
export function challenge(url: string, invalidToken: boolean): string {
  const metadata = `${origin(url)}${RESOURCE_METADATA_PATH}`;
  return invalidToken
    ? `Bearer realm="service", error="invalid_token", resource_metadata="${metadata}"`
    : `Bearer realm="service", resource_metadata="${metadata}"`;
}
