/**
 * The Latchkey side of the provider tests: the real server (default distribution) with the given
 * provider flags, an admin client, and the application's redirect target on loopback (allowed by
 * `--allowed-origins *` for a loopback `--url`).
 */
import type { FlagValue } from '../../../core/config.js';
import type { AnyPlugin } from '../../../core/plugin.js';
import { defaultPlugins } from '../../../plugins/default.js';
import { startTestServer, TEST_ADMIN_SECRET, type TestServer } from '../../helpers/server.js';

/** Where the application wants the user back; never fetched (the follower stops there). */
export const APP_CALLBACK = 'http://localhost:5599/after-login';

export interface Latchkey {
  server: TestServer;
  url: string;
  admin(op: string, body: unknown): Promise<Record<string, unknown>>;
  /** The start of a social login as an application would link to it. */
  loginUrl(provider: string, params?: Record<string, string>): string;
  close(): Promise<void>;
}

export async function startLatchkey(
  flags: Record<string, FlagValue | undefined>,
  plugins?: readonly AnyPlugin[],
): Promise<Latchkey> {
  const server = await startTestServer({
    flags: { 'app-cookie-secure': false, ...flags },
    ...(plugins ? { plugins } : {}),
  });
  // A test that must know the port before the provider starts passes its own --url and --http-port.
  const url = typeof flags.url === 'string' ? flags.url : server.url;
  const admin = async (op: string, body: unknown) => {
    const res = await fetch(`${url}/v1/admin/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-admin-secret': TEST_ADMIN_SECRET, origin: url },
      body: JSON.stringify(body),
    });
    const json = (await res.json()) as Record<string, unknown>;
    if (res.status !== 200) throw new Error(`${op}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    server,
    url,
    admin,
    loginUrl: (provider, params = {}) =>
      `${url}/oauth_login/${provider}?${new URLSearchParams({ redirect_uri: APP_CALLBACK, state: 'app-state', ...params })}`,
    close: () => server.close(),
  };
}

/** Every user, through the admin API. */
export async function allUsers(l: Latchkey): Promise<Record<string, unknown>[]> {
  const res = (await l.admin('users', { pagination: { limit: 100 } })) as { users?: Record<string, unknown>[] };
  return res.users ?? [];
}

/**
 * The default distribution for a second server in the same process. The oauth-server plugin's
 * grant registry is one per process, so a second kernel with token-exchange registers that grant
 * twice and fails to boot; these servers need no token exchange.
 */
export const secondServerPlugins: readonly AnyPlugin[] = defaultPlugins.filter((p) => p.name !== 'token-exchange');
