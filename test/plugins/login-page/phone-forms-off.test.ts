/**
 * Without `--enable-mobile-basic-authentication` the hosted page shows no phone form and its phone
 * routes answer 404.
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { formClient } from './form-client.js';

const server = await startTestServer({
  flags: { 'enable-login-page': true, 'app-cookie-same-site': 'lax' },
});
t.teardown(() => server.close());

t.test('no phone accounts: no phone forms', async (t) => {
  const b = formClient(server.url);
  t.notMatch((await b.get('/app')).html, 'use-phone');
  t.notMatch((await b.get('/app?screen_hint=signup')).html, 'use-phone');
  const asked = await b.get('/app?method=phone');
  t.notMatch(asked.html, 'name="phone_number"', 'the email form instead');
  t.match(asked.html, 'name="email"');
  t.equal((await b.get('/app/forgot-password/phone')).status, 404);
  t.equal((await b.post('/app/forgot-password/phone', { phone_number: '+15558400001' })).status, 404);
  t.equal((await b.post('/app/phone/verify', { phone_number: '+15558400001', otp: '123456' })).status, 404);
  t.equal((await b.post('/app/phone/resend', { phone_number: '+15558400001' })).status, 404);
  const login = await b.post('/app/login', { phone_number: '+15558400001', password: 'Whatever-pass-1' });
  t.equal(login.status, 403, 'the login operation refuses a phone sign-in');
  t.match(login.html, 'mobile basic authentication is disabled');
});
