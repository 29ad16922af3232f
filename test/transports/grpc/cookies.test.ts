/** Cookies in `cookie` metadata and out as `set-cookie` metadata (RFC 6265). */
import t from 'tap';
import { parseCookieHeader, serializeSetCookie } from '../../../transports/grpc/cookies.js';

t.test('parses a Cookie header', async (t) => {
  t.strictSame(parseCookieHeader('a=1; b="quoted"; c=two%20words; a=ignored; broken; =x'), { a: '1', b: 'quoted', c: 'two words' });
  t.strictSame(parseCookieHeader(undefined), {});
  t.strictSame(parseCookieHeader('bad=%E0%A4%A'), { bad: '%E0%A4%A' }, 'undecodable values stay as sent');
});

t.test('serializes cookie effects as Set-Cookie values', async (t) => {
  t.equal(
    serializeSetCookie({ name: 's', value: 'v=1', options: { httpOnly: true, secure: true, sameSite: 'strict', maxAge: 60.7, domain: 'example.com', path: '/app' } }),
    's=v%3D1; Max-Age=60; Domain=example.com; Path=/app; HttpOnly; Secure; SameSite=Strict',
  );
  t.equal(serializeSetCookie({ name: 's', value: '', options: { maxAge: 0, httpOnly: false } }), 's=; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Path=/');
});
