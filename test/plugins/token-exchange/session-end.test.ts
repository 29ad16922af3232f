/**
 * A delegated (RFC 8693) token names its user's originating session and dies with it: after an
 * admin revokes the user's access, and after the user resets the password through the mailed
 * link, the delegated token is refused (401) on the next call, as the user's own token is.
 */
import t from 'tap';
import { TEST_ADMIN_SECRET } from '../../helpers/server.js';
import { rest, signupInput, startMailServer } from '../email/helpers.js';

const ACCESS = 'urn:ietf:params:oauth:token-type:access_token';

t.test('admin revoke and password reset end delegated tokens', async (t) => {
  const { server, sink, close } = await startMailServer({
    'email-limit-per-address': 1000,
    'email-limit-per-ip': 1000,
  });
  t.teardown(close);
  const admin = { 'x-service-admin-secret': TEST_ADMIN_SECRET };
  const created = await rest(server, 'admin/create_client', { name: 'Agent', allowed_scopes: ['openid'] }, admin);
  t.equal(created.status, 200);
  const agent = {
    id: (created.body.client as { client_id: string }).client_id,
    secret: created.body.client_secret as string,
  };
  const token = async (params: Record<string, string>) => {
    const res = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(params),
    });
    const body = (await res.json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`no token: ${JSON.stringify(body)}`);
    return body.access_token;
  };
  /** A signed-up user's token and a delegated token the agent got for it. */
  const delegation = async (email: string) => {
    const signup = await rest<{ access_token: string; user: { id: string } }>(server, 'signup', signupInput(email));
    const actor = await token({
      grant_type: 'client_credentials',
      client_id: agent.id,
      client_secret: agent.secret,
      scope: 'openid',
    });
    const delegated = await token({
      grant_type: 'urn:ietf:params:oauth:grant-type:token-exchange',
      client_id: agent.id,
      client_secret: agent.secret,
      subject_token: signup.body.access_token,
      subject_token_type: ACCESS,
      actor_token: actor,
      actor_token_type: ACCESS,
    });
    return { userId: signup.body.user.id, own: signup.body.access_token, delegated };
  };
  const profileStatus = async (bearer: string) =>
    (await fetch(`${server.url}/v1/profile`, { headers: { authorization: `Bearer ${bearer}` } })).status;

  const revoked = await delegation('revoked@example.com');
  t.equal(await profileStatus(revoked.delegated), 200, 'the delegated token works');
  const revoke = await rest(server, 'admin/revoke_access', { user_id: revoked.userId }, admin);
  t.equal(revoke.status, 200);
  t.equal(await profileStatus(revoked.delegated), 401, 'admin revoke ends the delegated token');
  t.equal(await profileStatus(revoked.own), 401, "and the user's own");

  const reset = await delegation('reset@example.com');
  t.equal(await profileStatus(reset.delegated), 200);
  t.equal((await rest(server, 'forgot_password', { email: 'reset@example.com' })).status, 200);
  const link = (await sink.next('reset@example.com')).link(`${server.url}/app/reset-password?token=`);
  t.ok(link, 'the reset link is mailed');
  const password = 'After-reset-9';
  const done = await rest(server, 'reset_password', {
    token: new URL(link!).searchParams.get('token'),
    password,
    confirm_password: password,
  });
  t.equal(done.status, 200);
  t.equal(await profileStatus(reset.delegated), 401, 'a password reset ends the delegated token');
  t.equal(await profileStatus(reset.own), 401, "and the user's own");
});
