/**
 * GET /logout from another site (OIDC RP-Initiated Logout 1.0 §2): without a valid
 * `id_token_hint`, a navigation that another website started (`Sec-Fetch-Site: cross-site`) gets
 * a page asking the user, whose button posts to POST /logout from this origin; any website could
 * otherwise sign its visitors out. The service's own navigations, typed URLs and hinted requests
 * log out at once.
 */
import t from 'tap';
import { oauthFixture } from './setup.js';

t.test('logout asks first when another site sent the browser', async (t) => {
  const fx = await oauthFixture();
  t.teardown(() => fx.server.close());
  const base = fx.server.url;
  const bye = 'http://localhost:5555/bye';
  const query = new URLSearchParams({ client_id: fx.client.client_id, post_logout_redirect_uri: bye, state: 's"<x>' });
  // The browser session the cookie names, read from the sessions service.
  const alive = async (cookie: string) =>
    (await fx.server.kernel.service('sessions').fromCookie(decodeURIComponent(cookie.split('=')[1]))) !== null;
  const get = (cookie: string, fetchSite?: string) =>
    fetch(`${base}/logout?${query}`, {
      redirect: 'manual',
      headers: { cookie, ...(fetchSite ? { 'sec-fetch-site': fetchSite } : {}) },
    });

  t.test('a cross-site navigation without a hint gets the question, and the session lives on', async (t) => {
    const cookie = await fx.newBrowserCookie();
    const res = await get(cookie, 'cross-site');
    t.equal(res.status, 200);
    t.equal(res.headers.get('set-cookie'), null, 'no cookie is cleared');
    const html = await res.text();
    t.match(html, /<form method="post" action="\/logout">/);
    t.ok(html.includes('value="s&quot;&lt;x&gt;"'), 'the parameters are carried, escaped');
    t.ok(html.includes(`value="${bye}"`), 'with the destination');
    t.equal(res.headers.get('referrer-policy'), 'same-origin', 'so the post carries this origin');
    t.ok(await alive(cookie), 'still signed in');

    const confirmed = await fetch(`${base}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie,
        origin: base,
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
      },
      body: query.toString(),
    });
    t.equal(confirmed.status, 303, 'the button signs out');
    t.equal(confirmed.headers.get('location'), `${bye}?state=${encodeURIComponent('s"<x>')}`);
    t.notOk(await alive(cookie), 'signed out');
  });

  t.test('the post from another site is served without the cookies, and ends nothing', async (t) => {
    const cookie = await fx.newBrowserCookie();
    const forged = await fetch(`${base}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie,
        origin: 'https://evil.example',
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'cross-site',
      },
      body: query.toString(),
    });
    t.not(forged.status, 500);
    t.ok(await alive(cookie), 'still signed in');
  });

  t.test('own-site, typed and header-less navigations, and hinted ones, log out at once', async (t) => {
    for (const site of ['same-origin', 'same-site', 'none', undefined]) {
      const cookie = await fx.newBrowserCookie();
      const res = await get(cookie, site);
      t.equal(res.status, 302, `Sec-Fetch-Site ${site ?? 'absent'}`);
      t.notOk(await alive(cookie), `signed out (${site ?? 'absent'})`);
    }
    const kernel = fx.server.kernel;
    const user = (await kernel.service('users').findById(fx.userId))!;
    const session = await kernel
      .service('sessions')
      .create({ userId: user.id, roles: ['user'], scopes: ['openid'], amr: ['pwd'], clientId: fx.client.client_id });
    const hint = (
      await kernel
        .service('tokens')
        .issue({ user, session, scopes: ['openid'], roles: ['user'], clientId: fx.client.client_id })
    ).id_token;
    const cookie = await fx.newBrowserCookie();
    const hinted = await fetch(
      `${base}/logout?${new URLSearchParams({ id_token_hint: hint, post_logout_redirect_uri: bye })}`,
      { redirect: 'manual', headers: { cookie, 'sec-fetch-site': 'cross-site' } },
    );
    t.equal(hinted.status, 302, 'a valid hint: no question');
    t.notOk(await alive(cookie));
  });

  t.test('a confirmation post with a repeated parameter is a 400 and ends nothing', async (t) => {
    const cookie = await fx.newBrowserCookie();
    const res = await fetch(`${base}/logout`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        cookie,
        origin: base,
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'same-origin',
      },
      body: 'state=a&state=b',
    });
    t.equal(res.status, 400);
    t.ok(await alive(cookie), 'still signed in');
  });

  t.test('with no session there is nothing to ask', async (t) => {
    const res = await fetch(`${base}/logout?${query}`, {
      redirect: 'manual',
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    t.equal(res.status, 302);
  });
});
