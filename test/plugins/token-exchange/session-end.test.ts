/**
 * A delegated (RFC 8693) token names its user's originating session and dies with it: after an
 * admin revokes the user's access, and after the user resets the password through the mailed
 * link, the delegated token is refused (401) on the next call, as the user's own token is.
 */
import t from 'tap';
import { TEST_ADMIN_SECRET } from '../../helpers/server.js';
import { delegatedToken } from '../../helpers/delegation.js';
import { rest, signupInput, startMailServer } from '../email/helpers.js';

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
  /** A signed-up user's token and a delegated token the agent got for it. */
  const delegation = async (email: string) => {
    const signup = await rest<{ access_token: string; user: { id: string } }>(server, 'signup', signupInput(email));
    const delegated = await delegatedToken(server.url, agent, signup.body.access_token);
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
