/**
 * Key rotation (issue 5, "JWKS with a secondary key for rotation"): a verify-only secondary key is
 * published in the JWKS with its own kid, tokens it signed keep validating (validate_jwt_token,
 * /userinfo), tokens signed by any other key are refused, and HMAC secrets are never published.
 */
import t from 'tap';
import { decodeJwt, decodeProtectedHeader, importPKCS8, SignJWT, type JWK } from 'jose';
import { accountsPlugin } from '../../../plugins/accounts/index.js';
import { startTestServer } from '../../helpers/server.js';
import { oauthFixture, rsaKeys } from '../oauth-server/setup.js';

/** Re-signs a token's claims with another key, as the key of a rotation would have signed them. */
async function resign(token: string, privatePem: string, kid: string): Promise<string> {
  const key = await importPKCS8(privatePem, 'RS256');
  return new SignJWT(decodeJwt(token)).setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' }).sign(key);
}

t.test('RS256 with a secondary public key', async (t) => {
  const previous = rsaKeys();
  const unrelated = rsaKeys();
  const fx = await oauthFixture([accountsPlugin], { 'jwt-secondary-public-key': previous.public });
  t.teardown(() => fx.server.close());
  const kernel = fx.server.kernel;
  const user = (await kernel.service('users').findById(fx.userId))!;
  const scopes = ['openid', 'email'];
  const session = await kernel
    .service('sessions')
    .create({ userId: user.id, roles: ['user'], scopes, amr: ['pwd'], clientId: fx.client.client_id });
  const issued = await kernel
    .service('tokens')
    .issue({ user, session, scopes, roles: ['user'], clientId: fx.client.client_id, idTokenClaimsByScope: true });
  const currentKid = decodeProtectedHeader(issued.access_token).kid!;

  const jwks = (await (await fetch(`${fx.server.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
  t.equal(jwks.keys.length, 2, 'the signing key and the secondary key');
  t.equal(jwks.keys[0].kid, currentKid, 'the signing key comes first');
  const secondaryKid = jwks.keys[1].kid!;
  t.not(secondaryKid, currentKid, 'distinct kids');
  for (const k of jwks.keys) {
    t.equal(k.alg, 'RS256');
    t.equal(k.use, 'sig');
    t.notOk(k.d, 'no private part is published');
  }

  const validate = async (token: string) =>
    (await (
      await fetch(`${fx.server.url}/v1/validate_jwt_token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: fx.server.url },
        body: JSON.stringify({ token_type: 'access_token', token }),
      })
    ).json()) as { is_valid?: boolean };
  const userinfo = (token: string) =>
    fetch(`${fx.server.url}/userinfo`, { headers: { authorization: `Bearer ${token}` } });

  t.test('a token signed by the secondary key validates', async (t) => {
    const old = await resign(issued.access_token, previous.private, secondaryKid);
    t.equal((await validate(old)).is_valid, true, 'validate_jwt_token');
    const res = await userinfo(old);
    t.equal(res.status, 200, '/userinfo');
    t.equal(((await res.json()) as { email?: string }).email, 'ada@example.com');
  });

  t.test('a token signed by an unrelated key is refused', async (t) => {
    for (const kid of [secondaryKid, currentKid, 'unknown-kid']) {
      const forged = await resign(issued.access_token, unrelated.private, kid);
      t.not((await validate(forged)).is_valid, true, `validate_jwt_token refuses it (kid ${kid})`);
      t.equal((await userinfo(forged)).status, 401, `/userinfo refuses it (kid ${kid})`);
    }
  });

  t.test('client_credentials tokens signed by the secondary key are accepted by introspection', async (t) => {
    const res = await fetch(`${fx.server.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${fx.client.client_id}:${fx.client.client_secret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    const service = ((await res.json()) as { access_token: string }).access_token;
    const introspect = async (token: string) =>
      (await (
        await fetch(`${fx.server.url}/oauth/introspect`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${fx.client.client_id}:${fx.client.client_secret}`).toString('base64')}`,
          },
          body: `token=${encodeURIComponent(token)}`,
        })
      ).json()) as { active: boolean };
    t.equal((await introspect(await resign(service, previous.private, secondaryKid))).active, true);
    t.equal((await introspect(await resign(service, unrelated.private, secondaryKid))).active, false);
  });
});

t.test('HS256 with a secondary secret: verified, never published', async (t) => {
  const server = await startTestServer({
    flags: { 'jwt-secondary-secret': 'previous-secret-previous-secret-0123456789' },
  });
  t.teardown(() => server.close());
  const jwks = (await (await fetch(`${server.url}/.well-known/jwks.json`)).json()) as { keys: JWK[] };
  t.same(jwks.keys, [], 'HMAC secrets are not in the JWKS');
  const kernel = server.kernel;
  t.equal(kernel.service('keys').verifiers.length, 2);
  const user = await kernel.service('users').create({
    email: 'hs@example.com',
    password: 'correct-horse-1',
    signup_method: 'basic_auth',
    roles: ['user'],
    email_verified: true,
  });
  const session = await kernel
    .service('sessions')
    .create({ userId: user.id, roles: ['user'], scopes: ['openid'], amr: ['pwd'] });
  const issued = await kernel.service('tokens').issue({ user, session, scopes: ['openid'], roles: ['user'] });
  const secondaryKid = kernel.service('keys').verifiers[1].kid;
  const sign = (secret: string, kid: string) =>
    new SignJWT(decodeJwt(issued.access_token))
      .setProtectedHeader({ alg: 'HS256', kid, typ: 'JWT' })
      .sign(new TextEncoder().encode(secret));
  const tokens = kernel.service('tokens');
  t.ok(
    await tokens.verifyAccessToken(await sign('previous-secret-previous-secret-0123456789', secondaryKid)),
    'secondary secret accepted',
  );
  t.notOk(
    await tokens.verifyAccessToken(await sign('some-other-secret-some-other-secret-0123', secondaryKid)),
    'other secret refused',
  );
});

t.test('the secondary key must match the kind of the signing key', async (t) => {
  await t.rejects(
    startTestServer({ flags: { 'jwt-secondary-public-key': rsaKeys().public } }),
    /--jwt-secondary-public-key is for RS and ES types/,
  );
  await t.rejects(
    startTestServer({ flags: { 'jwt-secondary-secret': 'test-jwt-secret-test-jwt-secret-0123456789' } }),
    /must differ from --jwt-secret/,
  );
  const keys = rsaKeys();
  await t.rejects(
    startTestServer({
      flags: {
        'jwt-type': 'RS256',
        'jwt-secret': undefined,
        'jwt-private-key': keys.private,
        'jwt-public-key': keys.public,
        'encryption-key': 'x'.repeat(40),
        'jwt-secondary-public-key': keys.public,
      },
    }),
    /secondary key is the signing key itself/,
  );
});
