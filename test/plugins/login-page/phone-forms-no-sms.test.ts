/** Phone accounts without an SMS gateway: the hosted page signs them in but offers no reset by SMS. */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { formClient } from './form-client.js';

const server = await startTestServer({
  flags: { 'enable-login-page': true, 'app-cookie-same-site': 'lax', 'enable-mobile-basic-authentication': true },
});
t.teardown(() => server.close());

t.test('phone sign-in, but no reset by SMS', async (t) => {
  const b = formClient(server.url);
  const signed = await b.post('/app/signup', {
    phone_number: '+15558500001',
    password: 'No-sms-pass-1',
    confirm_password: 'No-sms-pass-1',
    return_to: '/app',
  });
  t.equal(signed.status, 303, 'a phone account without verification signs up at once');
  t.ok(b.jar.has('cookie_session'));
  const page = await formClient(server.url).get('/app?method=phone');
  t.match(page.html, 'name="phone_number"');
  t.notMatch(page.html, '/app/forgot-password/phone');
  t.equal((await b.get('/app/forgot-password/phone')).status, 404);
});
