/**
 * The MCP SDK's own OAuth client against the started server, with no hand-made token requests:
 * an OAuthClientProvider given to the SDK's streamable HTTP transport meets the 401 challenge,
 * follows `resource_metadata` to the RFC 9728 document and the RFC 8414 metadata, gets a client
 * id (RFC 7591 dynamic registration, or its client ID metadata document where the provider has
 * one and the server supports them), and starts the authorization-code flow with PKCE and
 * `resource={url}/mcp`. The signed-in user's browser part (the consent screen) is played with
 * plain HTTP requests; the SDK then redeems the code and calls every tool with the token. A
 * service account gets its token through the SDK's client-credentials provider the same way.
 */
import t, { type Test } from 'tap';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { expectServiceAccountTools, expectUserTools, seedDocuments } from '../../helpers/mcp-tools.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';
import { startDocumentHost } from '../client-metadata/document-host.js';

const host = await startDocumentHost();
t.teardown(() => host.close());
const server = await startTestServer({
  flags: {
    'mcp-enabled': true,
    'enable-dynamic-client-registration': true,
    'enable-client-id-metadata-document': true,
    'client-id-metadata-allowed-domains': ['localhost'],
    // The document host is on loopback; only this test lets the guarded client reach it.
    'outbound-allow-cidrs': ['127.0.0.1/32', '::1/128'],
    'app-cookie-secure': false,
  },
});
t.teardown(() => server.close());
const base = server.url;
const mcpUrl = `${base}/mcp`;
const REDIRECT = 'http://127.0.0.1:7777/callback';

let cookie = '';
let userId = '';
let service: { id: string; secret: string };
t.before(async () => {
  const signup = await fetch(`${base}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({
      email: 'mcp-owner@example.com',
      password: 'Owner-pass-1',
      confirm_password: 'Owner-pass-1',
      given_name: 'Ada',
    }),
  });
  userId = ((await signup.json()) as { user: { id: string } }).user.id;
  cookie = signup.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const created = await fetch(`${base}/v1/admin/create_client`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-admin-secret': TEST_ADMIN_SECRET, origin: base },
    body: JSON.stringify({ name: 'Nightly job', allowed_scopes: ['openid'] }),
  });
  const client = (await created.json()) as { client: { client_id: string }; client_secret: string };
  service = { id: client.client.client_id, secret: client.client_secret };
  await seedDocuments(base, userId, service.id);
});

/** An in-memory provider, as a CLI agent keeps its state; the browser step is left to the test. */
class AgentProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  readonly stateValue = crypto.randomUUID();

  constructor(readonly clientMetadataUrl?: string) {}

  get redirectUrl(): string {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK agent',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return this.stateValue;
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info;
  }
  tokens(): OAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
}

/** Every request the SDK makes, as `METHOD path status`. */
function recordingFetch(log: string[]): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    log.push(`${init?.method ?? 'GET'} ${url.pathname} ${res.status}`);
    return res;
  };
}

/** The signed-in user's browser: the authorization URL, the consent screen, and the code. */
async function approveInBrowser(t: Test, url: URL, state: string): Promise<string> {
  const get = (href: string) => fetch(href, { redirect: 'manual', headers: { cookie } });
  const consent = await get(url.href);
  t.equal(consent.status, 200, 'the consent screen comes first');
  const html = await consent.text();
  t.match(html, /127\.0\.0\.1:7777 wants to access your account/);
  const ticket = /name="ticket" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const decided = await fetch(`${base}/authorize/consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base, cookie },
    body: new URLSearchParams({ ticket, decision: 'allow' }),
  });
  t.equal(decided.status, 303);
  const back = await get(new URL(decided.headers.get('location')!, base).href);
  t.equal(back.status, 302);
  const callback = new URL(back.headers.get('location')!);
  t.equal(`${callback.origin}${callback.pathname}`, REDIRECT, 'back at the registered redirect URI');
  t.equal(callback.searchParams.get('state'), state, 'with the SDK state');
  t.equal(callback.searchParams.get('iss'), base, 'and the issuer (RFC 9207)');
  return callback.searchParams.get('code') ?? '';
}

/** The whole SDK flow: refused connect, browser approval, finishAuth, then a connected client. */
async function authorizeWithSdk(t: Test, provider: AgentProvider, log: string[]): Promise<Client> {
  const first = new Client({ name: 'sdk-agent', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    authProvider: provider,
    fetch: recordingFetch(log),
  });
  await t.rejects(first.connect(transport), { message: 'Unauthorized' }, 'the first connect needs authorization');
  const url = provider.authorizationUrl;
  if (!url) throw new Error('the SDK did not start the authorization');
  t.equal(url.origin + url.pathname, `${base}/authorize`);
  t.equal(url.searchParams.get('resource'), mcpUrl, 'resource={url}/mcp');
  t.equal(url.searchParams.get('code_challenge_method'), 'S256');
  t.equal(url.searchParams.get('client_id'), provider.client?.client_id);
  const code = await approveInBrowser(t, url, provider.stateValue);
  await transport.finishAuth(code);
  t.ok(provider.saved?.access_token, 'the SDK redeemed the code');
  t.equal(decodeJwt(provider.saved!.access_token).aud, mcpUrl, 'a token for the MCP resource');

  const connected = new Client({ name: 'sdk-agent', version: '1.0.0' });
  await connected.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recordingFetch(log) }),
  );
  t.teardown(() => connected.close());
  return connected;
}

const callEveryTool = (t: Test, c: Client) =>
  expectUserTools(t, c, {
    profile: { id: userId, email: 'mcp-owner@example.com', given_name: 'Ada' },
    refused: 'doc:secret',
  });

t.test('dynamic registration: challenge, discovery, registration, consent, PKCE, tools', async (t) => {
  const log: string[] = [];
  const provider = new AgentProvider();
  const c = await authorizeWithSdk(t, provider, log);
  t.match(provider.client, { client_id: String }, 'registered by the SDK');
  t.notOk((provider.client as { client_secret?: string }).client_secret, 'a public client: no secret');
  t.same(
    log.slice(0, 4),
    [
      'POST /mcp 401',
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /oauth/register 201',
    ],
    'the SDK followed the challenge to the resource metadata and the server metadata, then registered',
  );
  t.ok(log.includes('POST /oauth/token 200'), 'and redeemed the code itself');
  await callEveryTool(t, c);

  // A refresh through the SDK: the stored access token is dropped, the refresh token used.
  t.ok(provider.saved?.refresh_token, 'offline_access brought a refresh token');
  const before = provider.saved!.access_token;
  provider.saved = { ...provider.saved!, access_token: 'expired' };
  const refreshed = await auth(provider, { serverUrl: mcpUrl, fetchFn: recordingFetch(log) });
  t.equal(refreshed, 'AUTHORIZED');
  t.not(provider.saved.access_token, before, 'a new access token');
  t.equal(decodeJwt(provider.saved.access_token).aud, mcpUrl);
});

t.test('a client ID metadata document: the SDK uses its URL as client_id', async (t) => {
  const path = '/agents/sdk-agent.json';
  const clientId = host.serveJson(path, {
    client_id: `${host.url}${path}`,
    client_name: 'SDK agent',
    redirect_uris: [REDIRECT],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  });
  const log: string[] = [];
  const provider = new AgentProvider(clientId);
  const c = await authorizeWithSdk(t, provider, log);
  t.equal(provider.client?.client_id, clientId);
  t.notOk(
    log.some((l) => l.startsWith('POST /oauth/register')),
    'no registration: the server advertises client_id_metadata_document_supported',
  );
  t.equal(decodeJwt(provider.saved!.access_token).client_id, clientId);
  t.equal(host.hits(path), 1, 'the server fetched the document once');
  await callEveryTool(t, c);
});

t.test("the SDK's client-credentials provider: a service account's token for {url}/mcp", async (t) => {
  const log: string[] = [];
  const provider = new ClientCredentialsProvider({
    clientId: service.id,
    clientSecret: service.secret,
    scope: 'openid',
    expectedIssuer: base,
  });
  const c = new Client({ name: 'nightly-job', version: '1.0.0' });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(mcpUrl), { authProvider: provider, fetch: recordingFetch(log) }),
  );
  t.teardown(() => c.close());
  t.same(
    log.slice(0, 4),
    [
      'POST /mcp 401',
      'GET /.well-known/oauth-protected-resource/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /oauth/token 200',
    ],
    'challenge, discovery, then the client_credentials grant',
  );
  const claims = decodeJwt(provider.tokens()!.access_token);
  t.match(claims, { aud: mcpUrl, client_id: service.id });
  await expectServiceAccountTools(t, c);
});
