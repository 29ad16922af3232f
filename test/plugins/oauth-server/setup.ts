/**
 * A real Latchkey server with the OAuth plugins, RS256 keys, a registered client and a signed-in
 * user whose browser cookie the tests can present (the browser half of the flow).
 */
import { generateKeyPairSync } from 'node:crypto';
import type { AnyPlugin } from '../../../core/plugin.js';
import { adminPlugin } from '../../../plugins/admin/index.js';
import { clientRegistryPlugin } from '../../../plugins/client-registry/index.js';
import { keysPlugin } from '../../../plugins/keys/index.js';
import { oauthServerPlugin } from '../../../plugins/oauth-server/index.js';
import { serverPlugin } from '../../../plugins/server/index.js';
import { SESSION_COOKIE, sessionsPlugin } from '../../../plugins/sessions/index.js';
import { signInPlugin } from '../../../plugins/sign-in/index.js';
import { tokensPlugin } from '../../../plugins/tokens/index.js';
import { usersPlugin } from '../../../plugins/users/index.js';
import { startTestServer, TEST_ADMIN_SECRET, type TestServer } from '../../helpers/server.js';

export const oauthPlugins: AnyPlugin[] = [
  serverPlugin,
  keysPlugin,
  adminPlugin,
  usersPlugin,
  sessionsPlugin,
  tokensPlugin,
  signInPlugin,
  clientRegistryPlugin,
  oauthServerPlugin,
];

export function rsaKeys(): { private: string; public: string } {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    private: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    public: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export interface OAuthFixture {
  server: TestServer;
  client: { client_id: string; client_secret: string; id: string };
  redirectUri: string;
  userId: string;
  /** `cookie_session=...` of a signed-in browser. */
  cookie: string;
  admin(op: string, body: unknown): Promise<Record<string, unknown>>;
  newBrowserCookie(): Promise<string>;
}

export async function oauthFixture(
  extraPlugins: AnyPlugin[] = [],
  flags: Record<string, string | boolean | number | string[]> = {},
): Promise<OAuthFixture> {
  const keys = rsaKeys();
  const server = await startTestServer({
    plugins: [...oauthPlugins, ...extraPlugins],
    flags: {
      'jwt-type': 'RS256',
      'jwt-private-key': keys.private,
      'jwt-public-key': keys.public,
      'jwt-secret': undefined,
      'encryption-key': 'oauth-test-encryption-key-0123456789',
      'app-cookie-secure': false,
      ...flags,
    },
  });
  const redirectUri = 'http://localhost:5555/callback';
  const admin = async (op: string, body: unknown) => {
    const res = await fetch(`${server.url}/v1/admin/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-admin-secret': TEST_ADMIN_SECRET, origin: server.url },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${op}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  const created = await admin('create_client', {
    name: 'Relying party',
    allowed_scopes: ['openid', 'email', 'profile', 'offline_access', 'reports:read'],
    redirect_uris: [redirectUri],
    post_logout_redirect_uris: ['http://localhost:5555/bye'],
  });
  const client = {
    ...(created.client as { client_id: string; id: string }),
    client_secret: created.client_secret as string,
  };
  const kernel = server.kernel;
  const user = await kernel.service('users').create({
    email: 'ada@example.com',
    password: 'correct-horse-1',
    signup_method: 'basic_auth',
    roles: ['user'],
    given_name: 'Ada',
    family_name: 'Lovelace',
    email_verified: true,
  });
  const newBrowserCookie = async () => {
    const session = await kernel
      .service('sessions')
      .create({ userId: user.id, roles: ['user'], scopes: ['openid'], amr: ['pwd'] });
    return `${SESSION_COOKIE}=${encodeURIComponent(kernel.service('sessions').cookieValue(session))}`;
  };
  return { server, client, redirectUri, userId: user.id, cookie: await newBrowserCookie(), admin, newBrowserCookie };
}

/** The browser step: follow /authorize with the session cookie and return the redirect target. */
export async function browserAuthorize(url: URL | string, cookie: string | undefined): Promise<Response> {
  return fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
}
