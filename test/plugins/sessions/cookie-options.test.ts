/** The session cookies' attributes from --app-cookie-secure and --app-cookie-same-site. */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { cookieOptions, parentDomain } from '../../../plugins/sessions/cookies.js';

const options = (flags: Record<string, string | boolean>) =>
  cookieOptions(new Config({ url: 'https://auth.example.com', ...flags }), 60);

t.test('SameSite defaults to none, and an empty value counts as not given', async (t) => {
  t.match(options({}).host, { secure: true, sameSite: 'none', httpOnly: true });
  t.match(options({ 'app-cookie-same-site': '' }).host, { sameSite: 'none' });
  t.match(options({ 'app-cookie-same-site': 'strict' }).host, { sameSite: 'strict' });
  t.match(options({}).domain, { domain: 'example.com', sameSite: 'none' });
});

t.test('a cookie that is not Secure is never SameSite=None (browsers drop those): it goes out as Lax', async (t) => {
  t.match(options({ 'app-cookie-secure': false }).host, { secure: false, sameSite: 'lax' });
  t.match(options({ 'app-cookie-secure': false, 'app-cookie-same-site': 'none' }).domain, {
    secure: false,
    sameSite: 'lax',
  });
  t.match(
    options({ 'app-cookie-secure': false, 'app-cookie-same-site': 'strict' }).host,
    { sameSite: 'strict' },
    'a stricter choice is kept',
  );
});

t.test('the domain cookie is scoped to the host without its first label, never to a bare public suffix', async (t) => {
  const cases: [string, string | undefined][] = [
    ['https://auth.example.com', 'example.com'],
    ['https://auth.example.co.uk', 'example.co.uk'], // was co.uk, which browsers refuse
    ['https://auth.corp.example.com', 'corp.example.com'], // was example.com: the whole organisation
    ['https://auth.example.com./', 'example.com'], // a trailing dot is the same host
    ['https://example.com', undefined],
    ['https://example.co.uk', undefined], // was co.uk: a public suffix (Public Suffix List)
    ['https://app.github.io', undefined], // a private public suffix: github.io is not this service's site
    ['https://a.app.github.io', 'app.github.io'],
    ['http://localhost:8080', undefined],
    ['http://a.b.localhost:8080', undefined],
    ['http://127.0.0.1:8080', undefined],
    ['http://[::1]:8080', undefined],
  ];
  for (const [url, want] of cases) t.equal(parentDomain(url), want, url);
});
