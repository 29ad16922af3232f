/**
 * Tokens are signed and verified with jose, for every algorithm family the server takes (HS, RS,
 * ES): what the tokens service signs verifies under jose's jwtVerify with the published key,
 * jose's own tokens verify here, and every token that is altered, expired, early, foreign,
 * unsigned or malformed is refused by the verifier the service uses (verifierOf).
 */
import { createHmac, generateKeyPairSync, sign as nodeSign, createPrivateKey } from 'node:crypto';
import t from 'tap';
import { SignJWT, decodeProtectedHeader, importJWK, jwtVerify } from 'jose';
import type { KeysService } from '../../../plugins/keys/index.js';
import { verifierOf, type TokensService } from '../../../plugins/tokens/index.js';
import { bootAccounts } from '../accounts/helpers.js';

type Alg = 'HS256' | 'HS384' | 'HS512' | 'RS256' | 'RS384' | 'ES256' | 'ES384' | 'ES512';
const HASH = (alg: Alg) => `sha${alg.slice(2)}`;
const SECRET = 'a-test-jwt-secret-of-enough-length-0123456789';
const CURVE: Record<string, string> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };

const now = () => Math.floor(Date.now() / 1000);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** The base64url character after the last one, when the last one leaves bits unused, else the last one changed. */
function lastSibling(signature: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return alphabet[(alphabet.indexOf(signature[signature.length - 1]) + 1) % 64];
}

function pemPair(alg: Alg): { privatePem: string; publicPem: string } {
  const { privateKey, publicKey } = alg.startsWith('RS')
    ? generateKeyPairSync('rsa', { modulusLength: 2048 })
    : generateKeyPairSync('ec', { namedCurve: CURVE[alg] });
  return {
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

for (const alg of ['HS256', 'HS384', 'HS512', 'RS256', 'RS384', 'ES256', 'ES384', 'ES512'] as Alg[]) {
  t.test(`${alg}: signed and verified with jose, every refusal rule applied`, async (t) => {
    const hmac = alg.startsWith('HS');
    const pair = hmac ? null : pemPair(alg);
    const tk = await bootAccounts(
      hmac
        ? { 'jwt-type': alg, 'jwt-secret': SECRET }
        : {
            'jwt-type': alg,
            'jwt-secret': undefined,
            'encryption-key': 'an-encryption-key-of-enough-length-0123456789',
            'jwt-private-key': pair!.privatePem,
            'jwt-public-key': pair!.publicPem,
          },
    );
    t.teardown(() => tk.close());
    const tokens = tk.kernel.service('tokens') as TokensService;
    const keys = tk.kernel.service('keys') as KeysService;
    const ISS = tokens.issuer;
    const verify = verifierOf(keys.current, ISS);
    const signingKey = hmac ? Buffer.from(SECRET) : createPrivateKey(pair!.privatePem);
    const joseKey = hmac ? new TextEncoder().encode(SECRET) : await importJWK(keys.jwks().keys[0], alg);

    /** A correctly signed token with any header and payload: only the header and claim rules can refuse it. */
    const signed = (header: unknown, payload: unknown, as: Alg = alg): string => {
      const input = `${b64(header)}.${b64(payload)}`;
      const signature = hmac
        ? createHmac(HASH(as), signingKey as Buffer)
            .update(input)
            .digest()
        : nodeSign(HASH(as), Buffer.from(input), {
            key: signingKey as ReturnType<typeof createPrivateKey>,
            ...(alg.startsWith('ES') ? { dsaEncoding: 'ieee-p1363' as const } : {}),
          });
      return `${input}.${signature.toString('base64url')}`;
    };

    const { token: ours } = await tokens.sign({ sub: 'u1', token_type: 'id_token' }, 60);
    t.strictSame(decodeProtectedHeader(ours), { alg, kid: keys.current.kid, typ: 'JWT' }, 'the header');
    const { payload } = await jwtVerify(ours, joseKey, { issuer: ISS, algorithms: [alg] });
    t.equal(payload.sub, 'u1', 'jose verifies the service’s token');
    t.equal((await verify(ours, Date.now() / 1000))?.sub, 'u1', 'and so does the service');
    const theirs = await new SignJWT({ sub: 'u2' })
      .setProtectedHeader({ alg })
      .setIssuer(ISS)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(hmac ? joseKey : createPrivateKey(pair!.privatePem));
    t.equal((await verify(theirs, Date.now() / 1000))?.sub, 'u2', 'a token jose signed verifies');

    const [h, p, s] = ours.split('.');
    const other = hmac ? null : pemPair(alg);
    const foreign = hmac
      ? await new SignJWT({ sub: 'u1' })
          .setProtectedHeader({ alg })
          .setIssuer(ISS)
          .setExpirationTime('1m')
          .sign(new TextEncoder().encode('another-secret-another-secret-0123456789'))
      : await new SignJWT({ sub: 'u1' })
          .setProtectedHeader({ alg })
          .setIssuer(ISS)
          .setExpirationTime('1m')
          .sign(createPrivateKey(other!.privatePem));
    const otherAlg: Alg = hmac ? (alg === 'HS256' ? 'HS512' : 'HS256') : alg === 'RS256' ? 'RS384' : 'RS256';
    const cases: [string, string][] = [
      ['payload changed', `${h}.${b64({ sub: 'admin', iss: ISS, exp: now() + 60 })}.${s}`],
      ['signature changed', `${h}.${p}.${s.slice(0, 8)}${s[8] === 'A' ? 'B' : 'A'}${s.slice(9)}`],
      ['signature cut short', `${h}.${p}.${s.slice(0, -4)}`],
      ['signature removed', `${h}.${p}.`],
      ['junk after the signature', `${ours}!!`],
      ['padding after the signature', `${ours}=`],
      ['a space inside the signature', `${h}.${p}.${s.slice(0, 10)} ${s.slice(10)}`],
      // Standard base64's characters in place of base64url's (RFC 4648 §4 against §5).
      ['base64 "+" inside the signature', `${h}.${p}.${s.slice(0, 10)}+${s.slice(11)}`],
      ['base64 "/" inside the signature', `${h}.${p}.${s.slice(0, 10)}/${s.slice(11)}`],
      ['a non-ASCII character inside the signature', `${h}.${p}.${s.slice(0, 10)}é${s.slice(11)}`],
      ['one character more than whole bytes allow', `${ours}${'A'.repeat((((1 - s.length) % 4) + 4) % 4 || 4)}`],
      // The last character's unused low bits set: the same bytes under another text.
      ['unused bits of the last character set', `${h}.${p}.${s.slice(0, -1)}${lastSibling(s)}`],
      ['two parts', `${h}.${p}`],
      ['four parts', `${ours}.x`],
      ['empty', ''],
      ['signed by another key', foreign],
      ['alg none', `${b64({ alg: 'none' })}.${p}.`],
      ['header names another alg, signed as this one', signed({ alg: otherAlg }, { iss: ISS, exp: now() + 60 })],
      ['crit present', signed({ alg, crit: ['exp'] }, { iss: ISS, exp: now() + 60 })],
      ['b64 present', signed({ alg, b64: false }, { iss: ISS, exp: now() + 60 })],
      ['header not an object', signed([alg], { iss: ISS, exp: now() + 60 })],
      ['payload not an object', signed({ alg }, [1, 2])],
      ['other issuer', signed({ alg }, { iss: 'https://evil.example', exp: now() + 60 })],
      ['no issuer', signed({ alg }, { exp: now() + 60 })],
      ['expires now', signed({ alg }, { iss: ISS, exp: now() })],
      ['expired', signed({ alg }, { iss: ISS, exp: now() - 1 })],
      ['exp not a number', signed({ alg }, { iss: ISS, exp: String(now() + 60) })],
      ['no exp (every token this server signs expires)', signed({ alg }, { iss: ISS })],
      ['not yet valid', signed({ alg }, { iss: ISS, nbf: now() + 30, exp: now() + 60 })],
      ['iat not a number', signed({ alg }, { iss: ISS, iat: 'yesterday', exp: now() + 60 })],
    ];
    if (hmac)
      cases.push([
        'another HS alg, signed with it',
        signed({ alg: otherAlg }, { iss: ISS, exp: now() + 60 }, otherAlg),
      ]);
    for (const [what, token] of cases) t.equal(await verify(token, Date.now() / 1000), null, `refused: ${what}`);
    t.equal(await tokens.verifyAccessToken(`${b64({ alg: 'none' })}.${p}.`), null, 'the service refuses alg none');
    t.ok(
      await verify(signed({ alg, typ: 'JWT', kid: 'x' }, { iss: ISS, nbf: now(), exp: now() + 60 }), Date.now() / 1000),
      'nbf now, with typ and kid, is fine',
    );
    const hint = signed({ alg }, { iss: ISS, exp: now() - 3600, token_type: 'id_token' });
    t.ok(await tokens.verifyIdTokenHint(hint), 'an expired ID token is still a logout hint');
    t.equal(
      await tokens.verifyIdTokenHint(signed({ alg }, { iss: 'https://evil.example', exp: 1, token_type: 'id_token' })),
      null,
      'but not one of another issuer',
    );
  });
}

t.test('with no issuer configured, iss is not required', async (t) => {
  const tk = await bootAccounts({ 'jwt-type': 'HS256', 'jwt-secret': SECRET });
  t.teardown(() => tk.close());
  const keys = tk.kernel.service('keys') as KeysService;
  const input = `${b64({ alg: 'HS256' })}.${b64({ exp: now() + 60 })}`;
  const token = `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
  t.ok(await verifierOf(keys.current, '')(token, Date.now() / 1000));
  t.equal(await verifierOf(keys.current, 'https://auth.example.com')(token, Date.now() / 1000), null);
});
