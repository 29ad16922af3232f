/**
 * `--reset-password-url`: the link `forgot_password` mails opens that page (with the token in its
 * query) instead of the hosted reset form, and the token from it resets the password. A value
 * that is not an absolute http(s) URL refuses to start.
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { rest, signupInput, startMailServer } from './helpers.js';

const RESET_PAGE = 'https://app.example/account/reset';

t.test('the mailed link opens --reset-password-url', async (t) => {
  const { server, sink, close } = await startMailServer({ 'reset-password-url': RESET_PAGE });
  t.teardown(close);
  t.equal((await rest(server, 'signup', signupInput('owen@example.com'))).status, 200);

  const asked = await rest(server, 'forgot_password', { email: 'owen@example.com' });
  t.equal(asked.status, 200);
  const mail = await sink.next('owen@example.com');
  const link = mail.link(`${RESET_PAGE}?token=`);
  t.ok(link, 'the link opens the configured page');
  t.notOk(mail.link(`${server.url}/app/reset-password`), 'not the hosted form');

  const token = new URL(link!).searchParams.get('token')!;
  const password = 'Reset-url-pass-2';
  const reset = await rest(server, 'reset_password', { token, password, confirm_password: password });
  t.equal(reset.status, 200);
  t.same(reset.body, { message: 'Password updated successfully.' });
  t.equal((await rest(server, 'login', { email: 'owen@example.com', password })).status, 200, 'the new password works');
});

t.test('a value without a scheme refuses to start', async (t) => {
  await t.rejects(startTestServer({ flags: { 'reset-password-url': 'app.example/reset' } }), {
    message: /--reset-password-url must be an absolute http\(s\) URL/,
  });
});
