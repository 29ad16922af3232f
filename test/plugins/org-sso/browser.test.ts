/**
 * Organization SSO in a real browser (Debian Chromium through playwright-core): the hosted page's
 * email-first step discovers the organization of a verified domain, sends the browser through the
 * OIDC broker to the upstream issuer (node-oidc-provider on 127.0.0.1), and the browser comes back
 * to the application with tokens of a just-in-time member and a Latchkey session of its own.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { chromiumMissing, launchChromium } from '../../helpers/chromium.js';
import { delivered } from '../../providers/helpers/browser.js';
import { startAcmeIssuer } from '../../helpers/org-sso.js';
import { startLatchkey } from '../../providers/helpers/latchkey.js';
import { freePort } from '../../helpers/ports.js';

t.test(
  'email-first discovery, the upstream login and back with a session, in Chromium',
  { skip: chromiumMissing },
  async (t) => {
    // The application: a real local listener the browser lands on.
    const app = createServer((_req, res) => res.end('<!doctype html><title>app</title><p>back at the app</p>'));
    await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
    t.teardown(() => new Promise<void>((r) => app.close(() => r())));
    const appCallback = `http://localhost:${(app.address() as AddressInfo).port}/callback`;

    const port = await freePort();
    const base = `http://localhost:${port}`;
    const idp = await startAcmeIssuer(base);
    t.teardown(() => idp.close());
    // SameSite=None needs Secure; on plain http://localhost the test uses lax cookies.
    const latchkey = await startLatchkey({
      url: base,
      'http-port': port,
      'enable-login-page': true,
      'enable-org-discovery': true,
      'app-cookie-same-site': 'lax',
      'outbound-allow-cidrs': '127.0.0.1/32',
      'encryption-key': 'org-sso-browser-encryption-key-0123456789',
    });
    t.teardown(() => latchkey.close());
    const { admin } = latchkey;
    const acme = ((await admin('create_organization', { name: 'acme' })) as { id: string }).id;
    await admin('add_verified_org_domain', { org_id: acme, domain: 'acme.example' });
    await admin('create_org_oidc_connection', {
      org_id: acme,
      name: 'Acme IdP',
      issuer_url: idp.issuer,
      client_id: 'acme-latchkey',
      client_secret: 'acme-upstream-secret-0123',
    });
    idp.nextAccount = {
      sub: 'robin-upstream-1',
      claims: { email: 'robin@acme.example', email_verified: true, given_name: 'Robin' },
    };

    const browser = await launchChromium();
    t.teardown(() => browser.close());
    const page = await browser.newPage();
    // Redirect hops never commit a page, so the requests the browser made are what is recorded.
    const visited: string[] = [];
    page.on('request', (request) => {
      if (request.isNavigationRequest()) visited.push(request.url());
    });

    const returnTo = `/authorize?${new URLSearchParams({
      client_id: 'app',
      redirect_uri: appCallback,
      state: 'browser-sso-state',
      response_type: 'code',
    })}`;
    await page.goto(`${base}/app?${new URLSearchParams({ return_to: returnTo })}`);
    t.equal(await page.locator('#password').count(), 0, 'the first step asks for the email only');
    await page.fill('#email', 'robin@acme.example');
    await Promise.all([
      page.waitForURL((u) => u.toString().startsWith(appCallback), { timeout: 60_000 }),
      page.click('button[type=submit]'),
    ]);

    t.ok(
      visited.some((u) => u.startsWith(idp.issuer)),
      'the browser went through the upstream issuer',
    );
    const params = delivered(new URL(page.url()));
    t.equal(params.get('state'), 'browser-sso-state', 'the application gets its state back');
    const token = params.get('access_token');
    t.ok(token, 'and tokens');
    const profile = (await (
      await fetch(`${base}/v1/profile`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as { id: string; email: string; given_name: string };
    t.match(profile, { email: 'robin@acme.example', given_name: 'Robin' }, 'of the upstream user');
    const orgs = (await admin('user_organizations', { user_id: profile.id })) as { organizations?: unknown[] };
    t.match(JSON.stringify(orgs), /acme/, 'a just-in-time member of the organization');

    await page.goto(`${base}/app`);
    t.match(await page.locator('h1').innerText(), /You are signed in/, 'the browser holds a Latchkey session');
  },
);
