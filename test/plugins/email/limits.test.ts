/**
 * Abuse limits of the mail-sending operations: per destination address and per client IP, the
 * spec's 429 envelope over REST and RESOURCE_EXHAUSTED over GraphQL, counted alike for addresses
 * with and without an account.
 */
import t from 'tap';
import { gql, rest, signupInput, startMailServer } from './helpers.js';

const { server, close } = await startMailServer({
  'enable-email-verification': true,
  'enable-magic-link-login': true,
  'email-limit-per-address': 2,
  'email-limit-per-ip': 6,
});
t.teardown(close);

t.test('an address cannot be mail-bombed; then the client IP runs out', async (t) => {
  await rest(server, 'signup', signupInput('bomb@example.com'));
  for (let i = 0; i < 2; i++)
    t.equal((await rest(server, 'forgot_password', { email: 'bomb@example.com' })).status, 200);
  const third = await rest(server, 'forgot_password', { email: 'bomb@example.com' });
  t.equal(third.status, 429);
  t.match(third.body, { code: 'resource_exhausted', message: /too many emails/ });
  const resend = await gql(
    server,
    'mutation($p: ResendVerifyEmailRequest!) { resend_verify_email(params: $p) { message } }',
    { p: { email: 'bomb@example.com', identifier: 'basic_auth_signup' } },
  );
  t.equal(resend.errors?.[0]?.extensions?.code, 'RESOURCE_EXHAUSTED', 'every mail-sending operation counts');

  for (let i = 0; i < 2; i++)
    t.equal((await rest(server, 'forgot_password', { email: 'nobody@example.com' })).status, 200);
  t.equal(
    (await rest(server, 'forgot_password', { email: 'nobody@example.com' })).status,
    429,
    'unknown addresses alike',
  );

  const magic = await rest(server, 'magic_link_login', { email: 'fresh@example.com' });
  t.equal(magic.status, 429, 'the IP spent its allowance');
  t.match(magic.body, { code: 'resource_exhausted', message: /from this address/ });
});
