/**
 * Sign in with Apple through the real routes against an Apple-shaped issuer: the client secret
 * is an ES256 JWT the issuer verifies with the developer key's public half, the answer is a
 * form POST from the issuer's origin, and the name arrives only with the first authorization.
 */
import { exportJWK, exportPKCS8, generateKeyPair } from 'jose';
import t from 'tap';
import { Browser, delivered, landing } from './helpers/browser.js';
import { startJoseIssuer } from './helpers/jose-issuer.js';
import { APP_CALLBACK, startLatchkey } from './helpers/latchkey.js';

const developerKey = await generateKeyPair('ES256', { extractable: true });
const idp = await startJoseIssuer({
  clientId: 'com.example.web',
  client: { appleKey: await exportJWK(developerKey.publicKey), teamId: 'TEAM123456', keyId: 'KEY1234567' },
});
t.teardown(() => idp.close());
const latchkey = await startLatchkey({
  'apple-client-id': 'com.example.web',
  'apple-client-secret': await exportPKCS8(developerKey.privateKey),
  'apple-team-id': 'TEAM123456',
  'apple-key-id': 'KEY1234567',
  'apple-issuer-url': idp.issuer,
});
t.teardown(() => latchkey.close());

async function login(): Promise<{ hops: Awaited<ReturnType<Browser['follow']>>; profile: Record<string, unknown> }> {
  const hops = await new Browser().follow(latchkey.loginUrl('apple'), APP_CALLBACK);
  const token = delivered(landing(hops)).get('access_token');
  const res = await fetch(`${latchkey.url}/v1/profile`, { headers: { authorization: `Bearer ${token}` } });
  return { hops, profile: (await res.json()) as Record<string, unknown> };
}

t.test('first authorization: form_post callback, ES256 client secret, the name from the user field', async (t) => {
  idp.nextAccount = {
    sub: '001234.abcdef',
    claims: { email: 'ada@privaterelay.example', email_verified: 'true', is_private_email: 'true' },
    name: { firstName: 'Ada', lastName: 'Lovelace' },
  };
  const { hops, profile } = await login();
  const authorize = new URL(hops[0].location!);
  t.equal(authorize.searchParams.get('response_mode'), 'form_post');
  t.equal(authorize.searchParams.get('scope'), 'name email');
  const posted = hops.find((h) => h.url.includes('/oauth_callback/apple') && h.status === 303);
  t.ok(posted, 'the form post is answered with a redirect to the same callback as a GET');
  const auth = idp.clientAuths.at(-1)!;
  t.equal(auth.method, 'apple-jwt', 'the client authenticated with an ES256 JWT');
  t.equal(auth.claims?.iss, 'TEAM123456');
  t.equal(auth.claims?.sub, 'com.example.web');
  t.ok(Number(auth.claims?.exp) - Number(auth.claims?.iat) <= 3600, 'valid for an hour at most');
  t.equal(profile.email, 'ada@privaterelay.example');
  t.equal(profile.email_verified, true, 'Apple\'s string "true" counts as verified');
  t.equal(profile.given_name, 'Ada');
  t.equal(profile.family_name, 'Lovelace');
  t.equal(profile.signup_methods, 'apple');
});

t.test('later authorizations carry no name and reach the same account, name kept', async (t) => {
  const { hops, profile } = await login();
  const form = hops.find((h) => h.body?.includes('<form method="post"'));
  t.notMatch(form?.body ?? '', /name="user"/, 'no user field this time');
  t.equal(profile.email, 'ada@privaterelay.example');
  t.equal(profile.given_name, 'Ada');
});
