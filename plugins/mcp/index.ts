/**
 * The `mcp` plugin (`--mcp-enabled`): an MCP tool server at POST /mcp on the official SDK's
 * streamable HTTP transport, whose tools are the operations marked for MCP, and its RFC 9728
 * protected resource metadata at /.well-known/oauth-protected-resource/mcp.
 */
import { definePlugin } from '../../core/plugin.js';
import { mcpPrincipal } from './caller.js';
import { mcpRoutes } from './endpoint.js';
import { protectedResourceMetadata, RESOURCE_METADATA_PATH } from './resource.js';

export const mcpPlugin = definePlugin({
  name: 'mcp',
  description: 'MCP tool server at POST /mcp (streamable HTTP) for AI agents, with RFC 9728 resource metadata.',
  dependsOn: ['tokens', 'oauth-server'],
  enabled: (config) => config.bool('mcp-enabled'),
  flags: [{ name: 'mcp-enabled', type: 'boolean', default: false, description: 'MCP tool server at POST /mcp.' }],
  routes: [
    ...mcpRoutes,
    {
      method: 'GET',
      path: RESOURCE_METADATA_PATH,
      handler: async (_req, ctx) => ({
        status: 200,
        headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=3600' },
        body: protectedResourceMetadata(ctx.kernel.config.string('url', '')),
      }),
    },
  ],
  setup(ctx) {
    // The tool's operation is admitted for the principal the /mcp route recognised (caller.ts).
    ctx.authenticate('session', (rctx) => mcpPrincipal(rctx));
  },
});
