/** The session cookies' attributes from --app-cookie-secure and --app-cookie-same-site. */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { cookieOptions } from '../../../plugins/sessions/cookies.js';

const options = (flags: Record<string, string | boolean>) => cookieOptions(new Config({ url: 'https://auth.example.com', ...flags }), 60);

t.test('SameSite defaults to none, and an empty value counts as not given', async (t) => {
  t.match(options({}).host, { secure: true, sameSite: 'none', httpOnly: true });
  t.match(options({ 'app-cookie-same-site': '' }).host, { sameSite: 'none' });
  t.match(options({ 'app-cookie-same-site': 'strict' }).host, { sameSite: 'strict' });
  t.match(options({}).domain, { domain: 'example.com', sameSite: 'none' });
});

t.test('a cookie that is not Secure is never SameSite=None (browsers drop those): it goes out as Lax', async (t) => {
  t.match(options({ 'app-cookie-secure': false }).host, { secure: false, sameSite: 'lax' });
  t.match(options({ 'app-cookie-secure': false, 'app-cookie-same-site': 'none' }).domain, { secure: false, sameSite: 'lax' });
  t.match(options({ 'app-cookie-secure': false, 'app-cookie-same-site': 'strict' }).host, { sameSite: 'strict' }, 'a stricter choice is kept');
});
