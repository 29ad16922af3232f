/**
 * Passkeys on the hosted page in a real browser (Chromium with a CDP virtual authenticator, on
 * `localhost`): a signed-in user adds a passkey, signs out, signs in with it (by email, then
 * usernameless), and a later password login asks for the passkey as its second factor.
 */
import t from 'tap';
import { startTestServer } from '../../helpers/server.js';
import { chromiumMissing } from '../../helpers/chromium.js';
import { withVirtualAuthenticator } from './virtual-authenticator.js';

t.test('passkeys on the hosted page', { skip: chromiumMissing }, async (t) => {
  // SameSite=None needs Secure; on plain http://localhost the pages use lax cookies.
  const server = await startTestServer({ flags: { 'enable-login-page': true, 'app-cookie-same-site': 'lax' } });
  t.teardown(() => server.close());
  const email = 'hosted-passkey@example.com';
  const password = 'Hosted-pass-1';
  const signup = await fetch(`${server.url}/v1/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify({ email, password, confirm_password: password }),
  });
  t.equal(signup.status, 200, 'the account exists');

  const va = await withVirtualAuthenticator(`${server.url}/app`);
  t.teardown(() => va.close());
  const { page } = va;
  const signedIn = () => page.getByRole('heading', { name: 'You are signed in' }).waitFor({ timeout: 15_000 });
  const signOut = async () => {
    await va.context.clearCookies();
    await page.goto(`${server.url}/app`);
    await page.locator('#password').waitFor();
  };

  // Password sign-in, then add a passkey.
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('form[action="/app/login"] button[type=submit]');
  await signedIn();
  await page.click('#passkey-register');
  await page.locator('#notice').waitFor({ timeout: 15_000 });
  t.equal(await page.locator('#notice').textContent(), 'Passkey added.', 'the passkey is added');
  const stored = await va.credentials();
  t.equal(stored.length, 1, 'the authenticator holds one credential');
  t.ok(stored[0].isResidentCredential, 'a discoverable one');

  // Signed out, then in with the passkey: first naming the account, then usernameless.
  await signOut();
  await page.fill('#email', email);
  await page.click('#passkey-login');
  await signedIn();
  t.pass('signed in with the passkey and an email');
  await signOut();
  t.equal(await page.inputValue('#email'), '', 'no email given');
  await page.click('#passkey-login');
  await signedIn();
  t.pass('signed in with the passkey alone (usernameless)');
  const after = await va.credentials();
  t.ok(after[0].signCount >= 2, 'each sign-in moved the signature counter');

  // A password login now needs the passkey as its second factor.
  await signOut();
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.click('form[action="/app/login"] button[type=submit]');
  await page.locator('#passkey-verify').waitFor({ timeout: 15_000 });
  t.match(new URL(page.url()).pathname, '/app/mfa', 'the password alone leads to the MFA screen');
  const cookies = await va.context.cookies();
  t.ok(
    cookies.some((c) => c.name === 'mfa'),
    'with the mfa cookie',
  );
  t.notOk(
    cookies.some((c) => c.name === 'cookie_session'),
    'and no session yet',
  );
  await page.click('#passkey-verify');
  await signedIn();
  const done = await va.context.cookies();
  t.ok(
    done.some((c) => c.name === 'cookie_session'),
    'the passkey finished the sign-in',
  );
  t.notOk(
    done.some((c) => c.name === 'mfa'),
    'the mfa cookie is gone',
  );
});
