/**
 * Every raw route of the default distribution (the routes plugins serve beside the operation
 * table: /authorize, /oauth/*, /userinfo, /verify_email, /oauth_login/* and /oauth_callback/*,
 * the organization SSO and SAML routes, /scim/v2/*, /mcp, the login page's forms, discovery
 * documents) fed the malformed requests of raw-route-cases.ts, once without credentials and once
 * with the route's own (a SCIM token, an MCP token, the client's basic credentials, or a user's
 * access token and the admin secret). Each answer must come within ten seconds, below 500, with a
 * body that parses when it says it is JSON; a refusal on an OAuth endpoint carries RFC 6749's
 * `error`, one under /scim/v2 RFC 7644's error schema with its status.
 *
 * The routes come from the kernel's route table, so a route added later is swept too. Optional
 * routes are turned on (the login page, MCP, dynamic registration, org discovery, a social
 * provider whose endpoints point at a closed local port), an organization with a SAML connection
 * gives the SSO routes a slug that exists, and every request comes through a trusted proxy with
 * an address of its own, so that per-route rate limits (dynamic registration: 20 a minute) do not
 * stand in front of the checks being swept. SQLite only: what these routes do to the database is
 * what their operations do, which the operation sweeps run on every database.
 */
import type { Test } from 'tap';
import type { KernelRoute } from '../../../core/kernel.js';
import { TEST_ADMIN_SECRET, TEST_CLIENT_ID, TEST_CLIENT_SECRET, type TestServer } from '../../helpers/server.js';
import { selfSignedKeyPair } from '../../plugins/org-saml/saml-idp.js';
import { onDatabase } from './on-database.js';
import { bodyCases, queryCases, type RawCase } from './raw-route-cases.js';

const CLOSED = 'http://127.0.0.1:9';
const FLAGS = {
  'enable-login-page': true,
  'mcp-enabled': true,
  'enable-dynamic-client-registration': true,
  'enable-org-discovery': true,
  'trusted-proxies': '127.0.0.1',
  'github-client-id': 'sweep-client',
  'github-client-secret': 'sweep-secret',
  'github-authorization-url': `${CLOSED}/authorize`,
  'github-token-url': `${CLOSED}/token`,
  'github-user-url': `${CLOSED}/user`,
  'github-emails-url': `${CLOSED}/emails`,
  'encryption-key': 'raw-route-sweep-encryption-key-0123456789',
};

const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

interface Credentials {
  slug: string;
  userToken: string;
  scimToken: string;
  mcpToken: string;
}

async function post(server: TestServer, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url, ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** An organization with a SAML connection and a SCIM token, a user, and an MCP token. */
async function prepare(server: TestServer): Promise<Credentials> {
  const admin = (op: string, body: unknown) =>
    post(server, `/v1/admin/${op}`, body, { 'x-service-admin-secret': TEST_ADMIN_SECRET });
  const org = (await admin('create_organization', { name: 'sweep' })) as { id: string; slug?: string };
  const slug = org.slug ?? 'sweep';
  await admin('create_org_saml_connection', {
    org_id: org.id,
    name: 'Sweep IdP',
    idp_entity_id: 'https://idp.sweep.example/entity',
    idp_sso_url: `${CLOSED}/sso`,
    idp_certificate: selfSignedKeyPair('idp.sweep.example').certificate,
  });
  const scimToken = ((await admin('create_scim_endpoint', { org_id: org.id })) as { token: string }).token;
  const signup = await post(server, '/v1/signup', {
    email: 'sweep@example.com',
    password: 'Sweep-pass-1',
    confirm_password: 'Sweep-pass-1',
  });
  const userToken = signup.access_token as string;
  const created = await admin('create_client', { name: 'Sweep agent', allowed_scopes: ['openid'] });
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: (created.client as { client_id: string }).client_id,
      client_secret: created.client_secret as string,
      scope: 'openid',
      resource: `${server.url}/mcp`,
    }),
  });
  const mcpToken = ((await res.json()) as { access_token?: string }).access_token;
  if (!userToken || !mcpToken) throw new Error('the sweep needs a user token and an MCP token');
  return { slug, userToken, scimToken, mcpToken };
}

/** The route's path with its parameters filled: once with what exists, once with what does not. */
function pathsOf(route: KernelRoute, creds: Credentials): string[] {
  if (!/[:*]/.test(route.path)) return [route.path];
  const fill = (slug: string, id: string, rest: string) =>
    route.path
      .replace(/:org_slug/g, slug)
      .replace(/:[a-z_]+/gi, id)
      .replace(/\*$/, rest);
  return [fill(creds.slug, 'nope', 'Nope/deeper'), fill('%ED%A0%80', '%00', '..%2F..%2Fetc')];
}

function credentialsFor(path: string, creds: Credentials): Record<string, string> {
  if (path.startsWith('/scim/v2')) return { authorization: `Bearer ${creds.scimToken}` };
  if (path === '/mcp') return { authorization: `Bearer ${creds.mcpToken}` };
  if (/^\/oauth\/(token|revoke|introspect)$/.test(path))
    return { authorization: `Basic ${Buffer.from(`${TEST_CLIENT_ID}:${TEST_CLIENT_SECRET}`).toString('base64')}` };
  return { authorization: `Bearer ${creds.userToken}`, 'x-service-admin-secret': TEST_ADMIN_SECRET };
}

let proxied = 0;
/** A client address of its own for each request, forwarded by the trusted proxy (127.0.0.1). */
function nextClient(): string {
  proxied++;
  return `10.${(proxied >> 16) & 255}.${(proxied >> 8) & 255}.${proxied & 255}`;
}

/** What is wrong with the answer to `c` on `route`, or undefined. */
async function problemOf(
  server: TestServer,
  route: KernelRoute,
  path: string,
  c: RawCase,
  auth: Record<string, string>,
) {
  const init: RequestInit = {
    method: route.method,
    redirect: 'manual',
    headers: { origin: server.url, 'x-forwarded-for': nextClient(), ...auth, ...c.headers },
    signal: AbortSignal.timeout(10_000),
  };
  if (c.body !== undefined) init.body = typeof c.body === 'string' ? c.body : Uint8Array.from(c.body);
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${server.url}${path}${c.query}`, init);
    text = await res.text();
  } catch (err) {
    return `no answer: ${(err as Error).message}`;
  }
  if (res.status >= 500) return `${res.status}: ${text.slice(0, 200)}`;
  let json: Record<string, unknown> | undefined;
  if (/json/.test(res.headers.get('content-type') ?? '')) {
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      return `${res.status}: says JSON, is not: ${text.slice(0, 200)}`;
    }
  }
  if (res.status < 400) return undefined;
  if (route.errors?.startsWith('oauth') && typeof json?.error !== 'string')
    return `${res.status}: not RFC 6749's error shape: ${text.slice(0, 200)}`;
  if (
    route.errors === 'scim' &&
    (!Array.isArray(json?.schemas) || !json.schemas.includes(ERROR_SCHEMA) || json.status !== String(res.status))
  )
    return `${res.status}: not the SCIM error schema: ${text.slice(0, 200)}`;
  return undefined;
}

async function sweep(t: Test, server: TestServer) {
  const creds = await prepare(server);
  const forGet = queryCases(true);
  const forBody = [...queryCases(false), ...bodyCases()];
  let sent = 0;
  const routes = server.kernel.routes;
  for (const route of routes) {
    const problems: string[] = [];
    const cases = ['GET', 'HEAD'].includes(route.method) ? forGet : forBody;
    const [path, missing] = pathsOf(route, creds);
    // Parameters that name nothing, or do not decode, with a few of the cases.
    const runs: [string, RawCase[]][] = [
      [path, cases],
      ...(missing ? [[missing, cases.slice(0, 3)] as [string, RawCase[]]] : []),
    ];
    for (const [at, list] of runs) {
      for (const auth of [{}, credentialsFor(at, creds)]) {
        for (const c of list) {
          // A case that sends its own Authorization replaces the credentials: it was sent without them.
          if (c.headers?.authorization !== undefined && Object.keys(auth).length > 0) continue;
          sent++;
          const problem = await problemOf(server, route, at, c, auth);
          if (!problem) continue;
          const line = `${c.what}${Object.keys(auth).length ? ' (credentialed)' : ''} on ${at}: ${problem}`;
          problems.push(line);
        }
      }
    }
    // One line per route rather than one per request: thousands of passing asserts would hide the failures.
    t.same(problems.slice(0, 5), [], `${route.method} ${route.path}: every malformed request answered below 500`);
  }
  const paths = routes.map((r) => r.path);
  for (const expected of ['/authorize', '/oauth/token', '/verify_email', '/oauth_login/github', '/mcp'])
    t.ok(paths.includes(expected), `${expected} is among the swept routes`);
  t.ok(
    paths.some((p) => p.startsWith('/oauth/saml/')) && paths.some((p) => p.startsWith('/scim/v2/')),
    'SAML and SCIM too',
  );
  t.ok(sent > 5_000, `${sent} requests sent`);
}

await onDatabase(
  'sqlite',
  'every raw route answers malformed requests below 500, in a body that parses, without hanging',
  (t, server) => sweep(t, server),
  FLAGS,
);
