/**
 * A token an OAuth client got through /authorize acts for the user within that grant only: it
 * reads the profile (as /userinfo would), but it cannot mint the first-party app's tokens and
 * cookies through `session`, change the profile or close the account (an `openid`-only
 * third-party token must not turn into first-party tokens with any scope, a refresh token and the
 * browser's cookies).
 */
import t from 'tap';
import { accountsPlugin } from '../../../plugins/accounts/index.js';
import { oauthFixture } from '../oauth-server/setup.js';

t.test("a third-party client's token cannot manage the account; a first-party one can", async (t) => {
  const f = await oauthFixture([accountsPlugin]);
  t.teardown(() => f.server.close());
  const kernel = f.server.kernel;
  const user = (await kernel.service('users').findById(f.userId))!;
  // What the authorization-code grant stores and issues for the client (token/authorization-code.ts).
  const session = await kernel
    .service('sessions')
    .create({ userId: user.id, roles: ['user'], scopes: ['openid'], amr: ['pwd'], clientId: f.client.client_id });
  const issued = await kernel.service('tokens').issue({
    idTokenClaimsByScope: true,
    user,
    session,
    scopes: ['openid'],
    roles: ['user'],
    clientId: f.client.client_id,
  });
  const call = async (path: string, token: string, body?: unknown) => {
    const res = await fetch(`${f.server.url}/v1/${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        origin: f.server.url,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: res.status,
      json: (await res.json()) as Record<string, unknown>,
      cookies: res.headers.getSetCookie(),
    };
  };

  const profile = await call('profile', issued.access_token);
  t.equal(profile.status, 200, 'the profile reads');
  t.equal(profile.json.email, 'ada@example.com');

  const widened = await call('session', issued.access_token, {
    scope: ['openid', 'email', 'profile', 'offline_access'],
  });
  t.equal(widened.status, 403);
  t.equal(widened.json.code, 'permission_denied');
  t.match(widened.json.message, /first-party app/);
  t.notOk(widened.json.refresh_token, 'no refresh token');
  t.same(widened.cookies, [], 'no cookies');
  t.equal(
    (await call('update_profile', issued.access_token, { given_name: 'Mallory' })).status,
    403,
    'update_profile refused',
  );
  t.equal((await call('deactivate_account', issued.access_token, {})).status, 403, 'deactivate_account refused');
  const after = (await kernel.service('users').findById(user.id))!;
  t.equal(after.givenName, 'Ada', 'the profile is unchanged');
  t.equal(after.revokedTimestamp, null, 'the account is still active');

  const login = await fetch(`${f.server.url}/v1/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: f.server.url },
    body: JSON.stringify({
      email: 'ada@example.com',
      password: 'correct-horse-1',
      scope: ['openid', 'email', 'offline_access'],
    }),
  });
  const first = (await login.json()) as { access_token: string };
  const own = await call('session', first.access_token, { scope: ['openid', 'email', 'offline_access'] });
  t.equal(own.status, 200, "the first-party app's own token still gets a session");
  t.ok(own.json.refresh_token);
  t.equal(
    (await call('update_profile', String(own.json.access_token), { given_name: 'Augusta' })).status,
    200,
    'and changes the profile',
  );
});

t.test(
  'a token bound to another API by `resource` (RFC 8707) is not accepted here; one bound to Latchkey is',
  async (t) => {
    const f = await oauthFixture([accountsPlugin]);
    t.teardown(() => f.server.close());
    const kernel = f.server.kernel;
    const user = (await kernel.service('users').findById(f.userId))!;
    const tokenFor = async (audience: string | undefined) => {
      const session = await kernel
        .service('sessions')
        .create({ userId: user.id, roles: ['user'], scopes: ['openid'], amr: ['pwd'], clientId: f.client.client_id });
      return (
        await kernel.service('tokens').issue({
          user,
          session,
          scopes: ['openid'],
          roles: ['user'],
          clientId: f.client.client_id,
          ...(audience ? { audience } : {}),
        })
      ).access_token;
    };
    const profile = async (token: string) =>
      (await fetch(`${f.server.url}/v1/profile`, { headers: { authorization: `Bearer ${token}` } })).status;
    const validate = async (token: string) => {
      const res = await fetch(`${f.server.url}/v1/validate_jwt_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: f.server.url },
        body: JSON.stringify({ token_type: 'access_token', token }),
      });
      return ((await res.json()) as { is_valid: boolean }).is_valid;
    };
    // A resource server that received this token must not be able to replay it against Latchkey
    // as a credential, for example to read the profile (RFC 9700 §2.3).
    const partner = await tokenFor('https://api.partner.example');
    t.equal(await profile(partner), 401, 'profile refused');
    // Asking about the token is another matter: validate_jwt_token, introspection and revocation
    // concern the token whatever it is for.
    t.equal(await validate(partner), true, 'validate_jwt_token: valid (a resource server asking about its token)');
    const form = (path: string, token: string) =>
      fetch(`${f.server.url}/oauth/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token, client_id: f.client.client_id, client_secret: f.client.client_secret }),
      });
    t.equal(
      ((await (await form('introspect', partner)).json()) as { active: boolean }).active,
      true,
      'introspection: active',
    );
    const mcpToken = await tokenFor(`${new URL(f.server.url).origin}/mcp`);
    t.equal(
      ((await (await form('introspect', mcpToken)).json()) as { active: boolean }).active,
      true,
      'introspection of an MCP-audience token: active',
    );
    t.equal(
      await validate(mcpToken),
      false,
      'validate_jwt_token of an MCP-audience token: invalid (MCP-audience tokens are refused off /mcp)',
    );
    // Without client authentication, a token bound to another API does not let that API end the
    // user's session (RFC 7009 §2.1).
    const anonymous = await fetch(`${f.server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: partner }),
    });
    t.equal(anonymous.status, 200, 'answered as RFC 7009 asks');
    t.equal(
      ((await (await form('introspect', partner)).json()) as { active: boolean }).active,
      true,
      'but nothing was revoked',
    );
    t.equal((await form('revoke', partner)).status, 200);
    t.equal(
      ((await (await form('introspect', partner)).json()) as { active: boolean }).active,
      false,
      'revocation took effect',
    );
    t.equal(await validate(partner), false, 'and the token is no longer valid');
    const origin = new URL(f.server.url).origin;
    for (const own of [undefined, origin, `${origin}/`, f.server.url]) {
      const token = await tokenFor(own);
      t.equal(await profile(token), 200, `audience ${own ?? 'the client id'}: profile reads`);
      t.equal(await validate(token), true, `audience ${own ?? 'the client id'}: valid`);
    }
    t.equal(
      await profile(await tokenFor(`${origin}/mcp`)),
      401,
      'an MCP-audience token stays refused (MCP-audience tokens are refused off /mcp)',
    );
  },
);
