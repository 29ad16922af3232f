/**
 * The hosted MFA screens without a browser (plain form posts, as a browser without JavaScript
 * sends them): a password sign-in the gate withholds lands on /app/mfa; the TOTP enrollment shows
 * the QR code, the key and the recovery codes; a wrong code shows an error, the right one signs in;
 * later sign-ins ask for the code; "Not now" declines an offer.
 */
import { generate } from 'otplib';
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { formClient, hidden } from './form-client.js';

const server = await startTestServer({ flags: { 'enable-login-page': true, 'app-cookie-same-site': 'lax' } });
t.teardown(() => server.close());
const PASSWORD = 'Screen-pass-1';

const browser = () => formClient(server.url);

async function account(email: string) {
  const res = await fetch(`${server.url}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify({ email, password: PASSWORD, confirm_password: PASSWORD, is_multi_factor_auth_enabled: true }),
  });
  if (res.status !== 200) throw new Error(`signup ${res.status}`);
}

t.test('TOTP enrollment and code entry on the hosted page', async (t) => {
  const email = 'screens@example.com';
  await account(email);
  const b = browser();
  const login = await b.post('/app/login', { email, password: PASSWORD, return_to: '/app' });
  t.equal(login.status, 303, 'the withheld sign-in redirects');
  t.match(login.location, /^\/app\/mfa\?/, 'to the MFA screen');
  t.ok(b.jar.has('mfa') && !b.jar.has('cookie_session'), 'with the mfa cookie and no session');
  const offer = await b.get(login.location!);
  t.equal(offer.status, 200);
  t.match(offer.html, 'id="totp-setup"', 'an authenticator app can be set up');
  t.match(offer.html, 'id="passkey-register"', 'so can a passkey');
  t.match(offer.html, 'id="mfa-skip"', 'and the offer can be declined');
  t.match(offer.html, '<script src="/app/passkey.js" defer></script>', 'with the passkey script');
  const s = hidden(offer.html, 's');

  const setup = await b.post('/app/mfa/totp-setup', { return_to: '/app', s });
  t.equal(setup.status, 200);
  t.match(setup.html, /<img id="totp-qr" src="data:image\/png;base64,[A-Za-z0-9+/=]+"/, 'the QR code');
  const secret = setup.html.match(/<code id="totp-secret">([A-Z2-7]+)<\/code>/)?.[1];
  t.ok(secret, 'the key');
  t.equal(setup.html.match(/<li><code>[A-Z0-9]{5}-[A-Z0-9]{5}<\/code><\/li>/g)?.length, 10, 'ten recovery codes');

  const wrong = await b.post('/app/mfa/verify', { return_to: '/app', s, otp: '000000', is_totp: 'true' });
  t.equal(wrong.status, 401, 'a wrong code');
  t.match(wrong.html, 'role="alert">invalid otp<', 'is shown as an error');
  const right = await b.post('/app/mfa/verify', {
    return_to: '/app',
    s,
    otp: await generate({ secret: secret! }),
    is_totp: 'true',
  });
  t.equal(right.status, 303, 'the right code signs in');
  t.equal(right.location, '/app');
  t.ok(b.jar.has('cookie_session') && !b.jar.has('mfa'), 'the session cookie, the mfa cookie cleared');

  // A later sign-in asks for the code.
  const again = browser();
  const second = await again.post('/app/login', { email, password: PASSWORD, return_to: '/app' });
  t.match(second.location, /s=totp(&|$)/, 'the TOTP code screen');
  const screen = await again.get(second.location!);
  t.match(screen.html, 'id="otp-totp"', 'a code field');
  t.notMatch(screen.html, 'id="mfa-skip"', 'nothing to skip');
  const next = await generate({ secret: secret!, epoch: Math.floor(Date.now() / 1000) + 30 });
  const done = await again.post('/app/mfa/verify', { return_to: '/app', s: 'totp', otp: next, is_totp: 'true' });
  t.equal(done.status, 303, 'signed in with the code');
  t.ok(again.jar.has('cookie_session'));
});

t.test('"Not now" declines the offer', async (t) => {
  const email = 'not-now@example.com';
  await account(email);
  const b = browser();
  const login = await b.post('/app/login', { email, password: PASSWORD, return_to: '/app' });
  const skip = await b.post('/app/mfa/skip', { return_to: '/app', s: 'setup-totp,skip' });
  t.equal(skip.status, 303);
  t.equal(skip.location, '/app');
  t.ok(login.location && b.jar.has('cookie_session'), 'signed in');
  const later = browser();
  const next = await later.post('/app/login', { email, password: PASSWORD, return_to: '/app' });
  t.equal(next.location, '/app', 'the next sign-in is not offered MFA again');
});

t.test('without the mfa cookie the MFA screen sends back to the sign-in', async (t) => {
  const res = await browser().get('/app/mfa?return_to=%2Fapp&s=totp');
  t.equal(res.status, 303);
  t.equal(res.location, '/app?return_to=%2Fapp');
});
