/** Cookies in (a Cookie header or `cookie` metadata) and out as Set-Cookie values (RFC 6265). */
import t from 'tap';
import { RequestContext } from '../../core/context.js';
import { parseCookieHeader, serializeSetCookie } from '../../core/cookies.js';

t.test('parses a Cookie header', async (t) => {
  t.strictSame(parseCookieHeader('a=1; b="quoted"; c=two%20words; a=ignored; broken; =x'), {
    a: '1',
    b: 'quoted',
    c: 'two words',
  });
  t.strictSame(parseCookieHeader(undefined), {});
  t.strictSame(parseCookieHeader('bad=%E0%A4%A'), { bad: '%E0%A4%A' }, 'undecodable values stay as sent');
});

t.test('serializes cookie effects as Set-Cookie values', async (t) => {
  t.equal(
    serializeSetCookie({
      name: 's',
      value: 'v=1',
      options: { httpOnly: true, secure: true, sameSite: 'strict', maxAge: 60.7, domain: 'example.com', path: '/app' },
    }),
    's=v%3D1; Max-Age=60; Domain=example.com; Path=/app; HttpOnly; Secure; SameSite=Strict',
  );
  t.equal(
    serializeSetCookie({ name: 's', value: '', options: { maxAge: 0, httpOnly: false } }),
    's=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/',
  );
  // Base64url passes as it is; anything else is percent-encoded exactly as encodeURIComponent does.
  for (const value of ['AbC-_09.~', 'a b;c', 'é', '"q"', "!*'()", 'x\r\ny']) {
    t.equal(
      serializeSetCookie({ name: 'n', value, options: { httpOnly: false } }),
      `n=${encodeURIComponent(value)}; Path=/`,
      JSON.stringify(value),
    );
  }
});

t.test('a request context parses its Cookie header only when a cookie is read', async (t) => {
  const kernel = {} as ConstructorParameters<typeof RequestContext>[0]['kernel'];
  const fromHeader = new RequestContext({
    kernel,
    transport: 'rest',
    ip: '127.0.0.1',
    headers: { cookie: 'cookie_session=abc%3D; other=1' },
  });
  t.equal(fromHeader.cookie('cookie_session'), 'abc=');
  t.strictSame(fromHeader.cookies, { cookie_session: 'abc=', other: '1' });
  const given = new RequestContext({
    kernel,
    transport: 'rest',
    ip: '127.0.0.1',
    headers: { cookie: 'a=from-header' },
    cookies: { a: 'given' },
  });
  t.equal(given.cookie('a'), 'given', 'cookies handed in by the transport win over the header');
  t.strictSame(new RequestContext({ kernel, transport: 'rest', ip: '127.0.0.1' }).cookies, {});
});
