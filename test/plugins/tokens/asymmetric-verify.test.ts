/**
 * RS* and ES* JWTs verified with node:crypto (plugins/tokens/asymmetric-verify.ts): jose's tokens
 * and ours verify, and every token jose's jwtVerify refuses is refused, for each algorithm.
 */
import { generateKeyPairSync, sign as nodeSign, KeyObject } from 'node:crypto';
import t from 'tap';
import { SignJWT, exportPKCS8, exportSPKI, generateKeyPair, importPKCS8, importSPKI, jwtVerify } from 'jose';
import { asymmetricSigner, type AsymmetricAlg } from '../../../plugins/tokens/asymmetric-sign.js';
import { asymmetricVerifier } from '../../../plugins/tokens/asymmetric-verify.js';

const ISS = 'https://auth.example';
const ALGS: AsymmetricAlg[] = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'];
const HASH = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
} as const;
const now = () => Math.floor(Date.now() / 1000);
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** As the keys plugin loads them: CryptoKeys imported from PEM. */
async function keysFor(alg: AsymmetricAlg) {
  const pair = await generateKeyPair(alg, { extractable: true });
  const privateKey = (await importPKCS8(await exportPKCS8(pair.privateKey), alg)) as CryptoKey;
  const publicKey = (await importSPKI(await exportSPKI(pair.publicKey), alg, { extractable: true })) as CryptoKey;
  return { privateKey, publicKey };
}

/** A correctly signed token with any header and payload: only the header and claim rules can refuse it. */
function signedWith(alg: AsymmetricAlg, privateKey: CryptoKey, header: unknown, payload: unknown): string {
  const input = `${b64(header)}.${b64(payload)}`;
  const key = KeyObject.from(privateKey);
  const signature = nodeSign(
    HASH[alg],
    Buffer.from(input),
    alg.startsWith('ES') ? { key, dsaEncoding: 'ieee-p1363' } : key,
  );
  return `${input}.${signature.toString('base64url')}`;
}

async function joseVerdict(token: string, key: CryptoKey, alg: AsymmetricAlg): Promise<boolean> {
  try {
    await jwtVerify(token, key, { issuer: ISS, algorithms: [alg] });
    return true;
  } catch {
    return false;
  }
}

for (const alg of ALGS) {
  t.test(`${alg}: tokens verify as jose verifies them`, async (t) => {
    const { privateKey, publicKey } = await keysFor(alg);
    const verify = asymmetricVerifier(alg, publicKey, ISS);
    const ours = await asymmetricSigner(alg, privateKey, 'kid-1')({ sub: 'u1', iss: ISS, iat: now(), exp: now() + 60 });
    t.equal((await verify(ours, now()))?.sub, 'u1', 'our token verifies');
    const theirs = await new SignJWT({ sub: 'u2' })
      .setProtectedHeader({ alg })
      .setIssuer(ISS)
      .setIssuedAt()
      .setExpirationTime('1m')
      .sign(privateKey);
    t.equal((await verify(theirs, now()))?.sub, 'u2', "jose's token verifies");

    const [h, p, s] = ours.split('.');
    const other = await keysFor(alg);
    const cases: [string, string][] = [
      ['payload changed', `${h}.${b64({ sub: 'admin', iss: ISS, exp: now() + 60 })}.${s}`],
      ['signature changed', `${h}.${p}.${s.slice(0, 8)}${s[8] === 'A' ? 'B' : 'A'}${s.slice(9)}`],
      ['signature cut short', `${h}.${p}.${s.slice(0, -4)}`],
      ['signature removed', `${h}.${p}.`],
      ['junk after the signature', `${ours}!!`],
      ['padding after the signature', `${ours}=`],
      ['two parts', `${h}.${p}`],
      ['four parts', `${ours}.x`],
      ['empty', ''],
      [
        'signed by another key',
        await asymmetricSigner(alg, other.privateKey, 'kid-1')({ sub: 'u1', iss: ISS, exp: now() + 60 }),
      ],
      ['alg none', `${b64({ alg: 'none' })}.${p}.`],
      [
        'header names another alg',
        signedWith(alg, privateKey, { alg: alg === 'RS256' ? 'RS512' : 'RS256' }, { iss: ISS, exp: now() + 60 }),
      ],
      ['crit present', signedWith(alg, privateKey, { alg, crit: ['exp'] }, { iss: ISS, exp: now() + 60 })],
      ['header not an object', signedWith(alg, privateKey, [alg], { iss: ISS, exp: now() + 60 })],
      ['payload not an object', signedWith(alg, privateKey, { alg }, [1, 2])],
      ['other issuer', signedWith(alg, privateKey, { alg }, { iss: 'https://evil.example', exp: now() + 60 })],
      ['no issuer', signedWith(alg, privateKey, { alg }, { exp: now() + 60 })],
      ['expired', signedWith(alg, privateKey, { alg }, { iss: ISS, exp: now() - 1 })],
      ['exp not a number', signedWith(alg, privateKey, { alg }, { iss: ISS, exp: String(now() + 60) })],
      ['not yet valid', signedWith(alg, privateKey, { alg }, { iss: ISS, nbf: now() + 30, exp: now() + 60 })],
      ['iat not a number', signedWith(alg, privateKey, { alg }, { iss: ISS, iat: 'yesterday', exp: now() + 60 })],
    ];
    for (const [what, token] of cases) {
      t.equal(await joseVerdict(token, publicKey, alg), false, `jose refuses: ${what}`);
      t.equal(await verify(token, now()), null, `refused: ${what}`);
    }
    // Stricter than jose, which takes a token without `exp` as never expiring.
    t.equal(await verify(signedWith(alg, privateKey, { alg }, { iss: ISS }), now()), null, 'refused: no exp');
    // Stricter than jose: `b64` outside `crit` is ignored there, but RFC 7797 §6 requires it
    // to be listed in `crit`); no token of ours carries it, so it is refused here as in hmac-jws.ts.
    const unencoded = signedWith(alg, privateKey, { alg, b64: false }, { iss: ISS, exp: now() + 60 });
    t.equal(await verify(unencoded, now()), null, 'refused: b64 present');
    const accepted = signedWith(
      alg,
      privateKey,
      { alg, typ: 'JWT', kid: 'x' },
      { iss: ISS, nbf: now(), exp: now() + 60 },
    );
    t.equal(await joseVerdict(accepted, publicKey, alg), true);
    t.ok(await verify(accepted, now()), 'nbf now, with typ and kid, is fine');
  });
}

t.test('only a key that fits the algorithm is taken, at boot', async (t) => {
  const rsa = await keysFor('RS256');
  const p256 = await keysFor('ES256');
  t.throws(() => asymmetricVerifier('ES256', rsa.publicKey, ISS), /not an EC key on prime256v1/);
  t.throws(() => asymmetricVerifier('ES384', p256.publicKey, ISS), /not an EC key on secp384r1/);
  t.throws(() => asymmetricVerifier('RS256', p256.publicKey, ISS), /not an RSA key of at least 2048 bits/);
  const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey;
  t.throws(() => asymmetricVerifier('RS256', small, ISS), /at least 2048 bits/, 'RSA under 2048 bits (RFC 7518 §3.3)');
  t.ok(asymmetricVerifier('RS256', KeyObject.from(rsa.publicKey), ISS), 'a KeyObject is taken as well');
});

t.test('ES384 and ES512 verify off the event loop; RS and ES256 at once', async (t) => {
  for (const alg of ALGS) {
    const { privateKey, publicKey } = await keysFor(alg);
    const token = await asymmetricSigner(alg, privateKey, 'k')({ iss: ISS, exp: now() + 60 });
    const answer = asymmetricVerifier(alg, publicKey, ISS)(token, now());
    t.equal(
      answer instanceof Promise,
      alg === 'ES384' || alg === 'ES512',
      `${alg}: ${answer instanceof Promise ? 'a promise' : 'an answer'}`,
    );
    t.ok(await answer);
  }
});
