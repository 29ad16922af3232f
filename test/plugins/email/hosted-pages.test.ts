/**
 * The hosted page's mail-based forms: Chromium walks forgot password → mailed link → reset form
 * → sign in with the new password; the magic-link form and the verification landing answer as
 * pages; bad input on every form is a 4xx page that writes nothing.
 */
import t from 'tap';
import { chromiumMissing, launchChromium } from '../../helpers/chromium.js';
import { rest, signupInput, startMailServer } from './helpers.js';

const { server, sink, close } = await startMailServer({
  'enable-login-page': true,
  'enable-magic-link-login': true,
  // SameSite=None needs Secure; on plain http://localhost the test uses lax cookies.
  'app-cookie-same-site': 'lax',
});
t.teardown(close);

await rest(server, 'signup', signupInput('web@example.com'));

const form = (path: string, fields: Record<string, string>) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url },
    body: new URLSearchParams(fields).toString(),
  });

t.test('forgot and reset the password in Chromium with the mailed link', { skip: chromiumMissing }, async (t) => {
  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  await page.goto(`${server.url}/app`);
  await page.click('text=Forgot your password?');
  t.equal(new URL(page.url()).pathname, '/app/forgot-password');
  await page.fill('#email', 'web@example.com');
  await page.click('button[type=submit]');
  t.equal(await page.locator('h1').textContent(), 'Check your inbox');

  const link = (await sink.next('web@example.com')).link(`${server.url}/app/reset-password?token=`);
  t.ok(link, 'the mail links to the hosted reset form');
  await page.goto(link!);
  await page.fill('#password', 'Browser-pass-1');
  await page.fill('#confirm_password', 'Browser-pass-2');
  await page.click('button[type=submit]');
  t.match(await page.locator('.error').textContent(), /does not match/, 'a mismatch is shown on the form');
  await page.fill('#password', 'Browser-pass-1');
  await page.fill('#confirm_password', 'Browser-pass-1');
  await page.click('button[type=submit]');
  t.equal(await page.locator('h1').textContent(), 'Password changed');

  await page.click('text=Back to sign in');
  await page.fill('#email', 'web@example.com');
  await page.fill('#password', 'Browser-pass-1');
  await page.click('button[type=submit]');
  await page.waitForURL(`${server.url}/app`);
  t.equal(await page.locator('h1').textContent(), 'You are signed in');
});

t.test('the magic-link form and the verification landing', async (t) => {
  const asked = await form('/app/magic-link', { email: 'web@example.com', return_to: '/app' });
  t.equal(asked.status, 200);
  t.match(await asked.text(), /Check your inbox/);
  const link = (await sink.next('web@example.com')).link(`${server.url}/verify_email?`)!;
  const landed = await fetch(link, { redirect: 'manual' });
  t.equal(landed.status, 303);
  const location = new URL(landed.headers.get('location')!);
  t.equal(location.pathname, '/app/verified', 'the hosted landing');
  t.notOk(location.searchParams.get('access_token'), 'with no token in its URL');
  t.match(landed.headers.get('set-cookie') ?? '', /cookie_session=/);
  const shown = await fetch(location);
  t.equal(shown.status, 200);
  t.match(await shown.text(), /You are signed in/);

  const spent = await fetch(link, { redirect: 'manual' });
  t.equal(spent.status, 303);
  const failed = await fetch(spent.headers.get('location')!);
  t.equal(failed.status, 400);
  t.match(await failed.text(), /invalid or expired token/);
});

t.test("a reset link made for the app's own page opens the reset form", async (t) => {
  const r = await fetch(`${server.url}/app?token=abc-123`, { redirect: 'manual' });
  t.equal(r.status, 303);
  t.equal(r.headers.get('location'), '/app/reset-password?token=abc-123');
});

t.test('bad input on the forms is a 4xx page', async (t) => {
  const bad = await form('/app/forgot-password', { email: 'not-an-email' });
  t.equal(bad.status, 400);
  t.match(await bad.text(), /invalid email address/);
  t.equal(
    (await form('/app/reset-password', { token: 'nope', password: 'Abc-12345', confirm_password: 'Abc-12345' })).status,
    400,
  );
  t.equal((await fetch(`${server.url}/app/reset-password`)).status, 400);
  t.equal((await form('/app/magic-link', {})).status, 400);
  const noOrigin = await fetch(`${server.url}/app/forgot-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'email=web%40example.com',
  });
  t.equal(noOrigin.status, 403, 'CSRF: a form post needs an Origin');
});
