/**
 * POST /mcp: the streamable HTTP transport of the official MCP SDK, stateless (one SDK server per
 * request, answers as JSON), behind the bearer check of /mcp (every request carries its own
 * token). Steps: the token is required and must be an MCP-audience token (else 401 with the RFC 9728
 * challenge), then the JSON-RPC message goes to the SDK, whose tool handlers run operations.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { RequestContext } from '../../core/context.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import { recognise } from './caller.js';
import { challenge, MCP_PATH, origin } from './resource.js';
import { callTool, listTools } from './tools.js';

const VERSION = '1.0.0';

function unauthorized(url: string, invalidToken: boolean): RawResponse {
  return {
    status: 401,
    headers: { 'www-authenticate': challenge(url, invalidToken), 'content-type': 'application/json' },
    body: {
      jsonrpc: '2.0',
      error: { code: -32001, message: invalidToken ? 'invalid_token' : 'authentication required' },
      id: null,
    },
  };
}

function sdkServer(ctx: RequestContext): Server {
  const server = new Server({ name: 'latchkey', version: VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools(ctx.kernel) }));
  server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(ctx, request.params.name, request.params.arguments),
  );
  return server;
}

async function handle(req: RawRequest, http: RequestContext): Promise<RawResponse> {
  const url = http.kernel.config.string('url', '');
  const bearer = http.bearer();
  if (!bearer) return unauthorized(url, false);
  // The tool's operation runs as the MCP transport, with no cookie honoured.
  const ctx = new RequestContext({
    kernel: http.kernel,
    transport: 'mcp',
    ip: http.ip,
    headers: http.headers,
    cookiesHonoured: false,
    ...(http.headers['user-agent'] ? { userAgent: http.headers['user-agent'] } : {}),
  });
  if (!(await recognise(ctx, bearer))) return unauthorized(url, true);

  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  const server = sdkServer(ctx);
  await server.connect(transport);
  try {
    const headers = new Headers();
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers.set(k, v);
    // The transport reads the message from parsedBody, so the body already parsed is never
    // serialized again (a JSON value nested thousands deep would overflow JSON.stringify).
    const request = new Request(`${origin(url)}${MCP_PATH}`, { method: 'POST', headers });
    const response = await transport.handleRequest(request, { parsedBody: req.body ?? null });
    const text = await response.text();
    const out: Record<string, string> = {};
    response.headers.forEach((value, key) => (out[key] = value));
    return { status: response.status, headers: out, body: text };
  } finally {
    await server.close();
  }
}

/** Streamable HTTP's GET (a server-initiated stream) and DELETE (a session) do not apply to a stateless server. */
const notAllowed = async (): Promise<RawResponse> => ({
  status: 405,
  headers: { allow: 'POST', 'content-type': 'application/json' },
  body: { jsonrpc: '2.0', error: { code: -32000, message: 'method not allowed' }, id: null },
});

export const mcpRoutes: RawRoute[] = [
  { method: 'POST', path: MCP_PATH, csrfExempt: true, errors: 'json-rpc', handler: handle },
  { method: 'GET', path: MCP_PATH, errors: 'json-rpc', handler: notAllowed },
  { method: 'DELETE', path: MCP_PATH, csrfExempt: true, errors: 'json-rpc', handler: notAllowed },
];
