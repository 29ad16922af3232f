/**
 * A real browser (Debian Chromium through playwright-core) signs in with a social provider from
 * the hosted page: the relying party's /authorize request sends it to /app, the user presses
 * "Continue with Google", the local OpenID Connect issuer signs them in, and the browser comes
 * back through /oauth_callback/google to the same /authorize request, which answers the relying
 * party with a code it redeems for an ID token naming the new user.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { authorizationRequest } from '../helpers/authorization-request.js';
import { chromiumMissing, launchChromium } from '../helpers/chromium.js';
import t from 'tap';
import { startLatchkey } from './helpers/latchkey.js';
import { startOidcIssuer } from './helpers/oidc-issuer.js';
import { freePort } from '../helpers/ports.js';
import { rsaKeys } from '../plugins/oauth-server/setup.js';

t.test(
  'Continue with Google on the hosted page, back to the relying party with a code',
  { skip: chromiumMissing },
  async (t) => {
    const rp = createServer((_req, res) => res.end('<!doctype html><title>callback</title><p>back at the app</p>'));
    await new Promise<void>((r) => rp.listen(0, '127.0.0.1', r));
    t.teardown(() => new Promise<void>((r) => rp.close(() => r())));
    const redirectUri = `http://localhost:${(rp.address() as AddressInfo).port}/callback`;

    const port = await freePort();
    const base = `http://localhost:${port}`;
    const idp = await startOidcIssuer({
      clients: [
        {
          client_id: 'google-client',
          client_secret: 'google-secret-0123456789',
          redirect_uris: [`${base}/oauth_callback/google`],
        },
      ],
    });
    t.teardown(() => idp.close());
    idp.nextAccount = {
      sub: 'google-browser-sub',
      claims: { email: 'grace@example.com', email_verified: true, given_name: 'Grace' },
    };
    const keys = rsaKeys();
    const latchkey = await startLatchkey({
      url: base,
      'http-port': port,
      'enable-login-page': true,
      // SameSite=None needs Secure; on plain http://localhost the test uses lax cookies.
      'app-cookie-same-site': 'lax',
      'jwt-type': 'RS256',
      'jwt-private-key': keys.private,
      'jwt-public-key': keys.public,
      'jwt-secret': undefined,
      'encryption-key': 'social-browser-encryption-key-0123456789',
      'google-client-id': 'google-client',
      'google-client-secret': 'google-secret-0123456789',
      'google-issuer-url': idp.issuer,
    });
    t.teardown(() => latchkey.close());
    const created = await latchkey.admin('create_client', {
      name: 'Relying party',
      allowed_scopes: ['openid', 'email', 'profile'],
      redirect_uris: [redirectUri],
    });
    const client = created.client as { client_id: string };

    const { config, verifier, nonce, url } = await authorizationRequest(
      base,
      { id: client.client_id, secret: created.client_secret as string },
      redirectUri,
      'rp-state',
    );

    const browser = await launchChromium();
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    await page.goto(url.toString());
    t.equal(new URL(page.url()).pathname, '/app', 'no session: the hosted login page');
    const button = page.locator('a.social', { hasText: 'Continue with Google' });
    t.equal(await button.count(), 1, 'one button for the one enabled provider');
    await Promise.all([
      page.waitForURL((u) => u.toString().startsWith(redirectUri), { timeout: 30_000 }),
      button.click(),
    ]);
    const landed = new URL(page.url());
    t.equal(landed.searchParams.get('state'), 'rp-state');
    const tokens = await oidc.authorizationCodeGrant(config, landed, {
      pkceCodeVerifier: verifier,
      expectedNonce: nonce,
      expectedState: 'rp-state',
    });
    t.equal(tokens.claims()!.email, 'grace@example.com', 'the ID token names the user the provider signed in');
    const user = (await latchkey.admin('user', { email: 'grace@example.com' })) as Record<string, unknown>;
    t.equal(user.signup_methods, 'google');
    t.equal(user.given_name, 'Grace');
  },
);
