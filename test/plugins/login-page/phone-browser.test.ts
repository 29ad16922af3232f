/**
 * Phone accounts on the hosted page in a real browser (Debian Chromium through playwright-core),
 * texting through a Twilio-shaped gateway on 127.0.0.1: a user signs up with a phone number and a
 * password, proves the number with the texted code, sets up SMS codes as the second factor
 * (`--enforce-mfa`), signs in again with the number, the password and a texted code, then resets
 * the password by a texted code and signs in with the new one. Texts may reach the gateway after
 * the answer (a worker may send them), so each step waits for its text to arrive. Neither the
 * number nor a code ever appears in a URL the browser requests.
 */
import t, { type Test } from 'tap';
import type { Browser, Page } from 'playwright-core';
import { chromiumMissing, launchChromium } from '../../helpers/chromium.js';
import { startPhoneServer, type PhoneServer } from '../phone-verification/helpers.js';

const PHONE = '+15558200001';
const DIGITS = PHONE.slice(1);
const PASSWORD = 'Phone-page-pass-1';
const NEW_PASSWORD = 'Phone-page-pass-2';

let phone: PhoneServer;
let browser: Browser;
/** Every URL any page of the test requested. */
const requested: string[] = [];

t.before(async () => {
  if (chromiumMissing) return;
  phone = await startPhoneServer({
    'enable-login-page': true,
    // SameSite=None needs Secure; on plain http://localhost the test uses lax cookies.
    'app-cookie-same-site': 'lax',
    'enable-phone-verification': true,
    'enforce-mfa': true,
  });
  browser = await launchChromium();
});
t.teardown(async () => {
  await browser?.close();
  await phone?.close();
});

/** A fresh browser context (no cookies) whose requests are recorded. */
async function freshPage(): Promise<Page> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.on('request', (r) => requested.push(r.url()));
  return page;
}

const heading = (page: Page) => page.locator('h1').innerText();

/** Signs in with the number and `password`, and passes the SMS code step. */
async function signInWithPhone(t: Test, page: Page, password: string) {
  await page.goto(`${phone.server.url}/app`);
  await page.click('#use-phone');
  await page.fill('#phone_number', PHONE);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
  await page.waitForURL((u) => u.pathname === '/app/mfa');
  t.equal(await heading(page), 'Two-step verification', 'the SMS code step');
  const code = await phone.nextCode(PHONE);
  await page.fill('#otp-sms', code);
  await page.click('form[action="/app/mfa/verify"] button[type=submit]');
  await page.waitForURL((u) => u.pathname === '/app' && u.search === '');
  t.equal(await heading(page), 'You are signed in');
}

t.test(
  'a phone account signs up, proves its number, uses SMS codes and resets its password',
  { skip: chromiumMissing },
  async (t) => {
    // Sign up with the number.
    const page = await freshPage();
    const response = await page.goto(`${phone.server.url}/app?screen_hint=signup`);
    t.match(response?.headers()['content-security-policy'], /default-src 'none'/, 'the page keeps its policy');
    await page.click('#use-phone');
    t.equal(await page.locator('#phone_number').getAttribute('type'), 'tel');
    await page.fill('#phone_number', PHONE);
    await page.fill('#password', PASSWORD);
    await page.fill('#confirm_password', PASSWORD);
    const verifyPage = page.waitForResponse((r) => r.url().endsWith('/app/signup'));
    await page.click('button[type=submit]');
    const verifyHeaders = (await verifyPage).headers();
    t.equal(await heading(page), 'Verify your phone number', 'the number waits for its code');
    t.match(verifyHeaders['content-security-policy'], /default-src 'none'/);
    t.notMatch(verifyHeaders['content-security-policy'] ?? '', /script-src/, 'the code form runs no script');
    t.equal(await page.locator('#phone').innerText(), PHONE);

    // A wrong code is refused on the page; the right one proves the number. (Five texts reach the
    // number in this test, the per-number limit of its window, so "send a new code" is tested
    // without a browser, in phone-forms.test.ts.)
    const code = await phone.nextCode(PHONE);
    await page.fill('#otp', code === '000000' ? '111111' : '000000');
    await page.click('form[action="/app/phone/verify"] button[type=submit]');
    t.equal(await page.locator('.error').innerText(), 'invalid otp', 'a wrong code shows an error');
    await page.fill('#otp', code);
    await page.click('form[action="/app/phone/verify"] button[type=submit]');

    // The number is proven; --enforce-mfa asks for a second factor: codes by SMS.
    await page.waitForURL((u) => u.pathname === '/app/mfa');
    await page.click('#sms-setup');
    t.equal(await page.locator('#mfa-notice').innerText(), 'A code is on its way.');
    await page.fill('#otp-sms', await phone.nextCode(PHONE));
    await page.click('form[action="/app/mfa/verify"] button[type=submit]');
    await page.waitForURL((u) => u.pathname === '/app' && u.search === '');
    t.equal(await heading(page), 'You are signed in', 'signed up, number proven, SMS codes set up');
    await page.context().close();

    // A later sign-in asks for the password and a texted code.
    const later = await freshPage();
    await later.goto(`${phone.server.url}/app`);
    await later.click('#use-phone');
    await later.fill('#phone_number', PHONE);
    await later.fill('#password', 'Not-the-password-1');
    await later.click('button[type=submit]');
    t.ok(await later.locator('.error').isVisible(), 'a wrong password shows an error');
    t.equal(await later.locator('#phone_number').inputValue(), PHONE, 'the number stays filled in');
    await signInWithPhone(t, later, PASSWORD);
    await later.context().close();

    // Forgot password: a texted code and a new password.
    const reset = await freshPage();
    await reset.goto(`${phone.server.url}/app?method=phone`);
    await reset.click('text=Forgot your password? Reset it by SMS');
    await reset.fill('#phone_number', PHONE);
    await reset.click('button[type=submit]');
    t.equal(await heading(reset), 'Choose a new password');
    await reset.fill('#otp', await phone.nextCode(PHONE));
    await reset.fill('#password', NEW_PASSWORD);
    await reset.fill('#confirm_password', NEW_PASSWORD);
    await reset.click('button[type=submit]');
    t.equal(await heading(reset), 'Password changed');
    await reset.click('#sign-in');
    await reset.fill('#phone_number', PHONE);
    await reset.fill('#password', PASSWORD);
    await reset.click('button[type=submit]');
    t.ok(await reset.locator('.error').isVisible(), 'the old password no longer works');
    await signInWithPhone(t, reset, NEW_PASSWORD);
    await reset.context().close();

    t.ok(requested.length > 10);
    t.notOk(
      requested.some((u) => u.includes(DIGITS) || /otp=|password=/.test(u)),
      'no number, code or password in any URL',
    );
  },
);
