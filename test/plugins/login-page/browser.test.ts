/**
 * A real browser (Debian Chromium through playwright-core) signs in through the hosted page: the
 * relying party's /authorize request sends it to /app, the user submits the form, and the browser
 * lands on the redirect URI with a code that the relying party redeems.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import * as oidc from 'openid-client';
import { authorizationRequest } from '../../helpers/authorization-request.js';
import { chromiumMissing, launchChromium } from '../../helpers/chromium.js';
import { accountsPlugin } from '../../../plugins/accounts/index.js';
import { loginPagePlugin } from '../../../plugins/login-page/index.js';
import { oauthFixture } from '../oauth-server/setup.js';

t.test('sign in through the hosted login page in Chromium', { skip: chromiumMissing }, async (t) => {
  // The relying party's callback: a real local listener the browser can land on.
  const rp = createServer((_req, res) => res.end('<!doctype html><title>callback</title><p>back at the app</p>'));
  await new Promise<void>((r) => rp.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => rp.close(() => r())));
  const port = (rp.address() as AddressInfo).port;
  const redirectUri = `http://localhost:${port}/callback`;

  // SameSite=None needs Secure; on plain http://localhost the test uses lax cookies.
  const fx = await oauthFixture([accountsPlugin, loginPagePlugin], {
    'enable-login-page': true,
    'app-cookie-same-site': 'lax',
  });
  t.teardown(() => fx.server.close());
  await fx.admin('update_client', { id: fx.client.id, redirect_uris: [redirectUri] });

  const { config, verifier, nonce, url } = await authorizationRequest(
    fx.server.url,
    { id: fx.client.client_id, secret: fx.client.client_secret },
    redirectUri,
    'browser-state',
  );

  const browser = await launchChromium();
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  await page.goto(url.toString());
  t.match(new URL(page.url()).pathname, '/app', 'no session: the hosted login page');
  await page.fill('#email', 'ada@example.com');
  await page.fill('#password', 'wrong-password-1');
  await page.click('button[type=submit]');
  t.ok(await page.locator('.error').isVisible(), 'a wrong password shows an error on the page');
  await page.fill('#password', 'correct-horse-1');
  await Promise.all([
    page.waitForURL((u) => u.toString().startsWith(redirectUri), { timeout: 60_000 }),
    page.click('button[type=submit]'),
  ]);
  const landed = new URL(page.url());
  t.ok(landed.searchParams.get('code'), 'landed on the redirect URI with a code');
  t.equal(landed.searchParams.get('state'), 'browser-state');

  const tokens = await oidc.authorizationCodeGrant(config, landed, {
    pkceCodeVerifier: verifier,
    expectedNonce: nonce,
    expectedState: 'browser-state',
  });
  t.equal(tokens.claims()!.sub, fx.userId);
  t.equal(tokens.claims()!.email, 'ada@example.com');
});
