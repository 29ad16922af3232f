/** RS* and ES* JWTs signed with node:crypto (plugins/tokens/asymmetric-sign.ts) verify with jose against the public key. */
import t from 'tap';
import { decodeProtectedHeader, exportPKCS8, generateKeyPair, importPKCS8, jwtVerify } from 'jose';
import { asymmetricSigner, type AsymmetricAlg } from '../../../plugins/tokens/asymmetric-sign.js';

t.test('every asymmetric --jwt-type signs tokens that jose verifies', async (t) => {
  for (const alg of ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'] as AsymmetricAlg[]) {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    // As the keys plugin loads them: a non-extractable CryptoKey from PKCS#8.
    const signKey = (await importPKCS8(await exportPKCS8(privateKey), alg)) as CryptoKey;
    const sign = asymmetricSigner(alg, signKey, 'kid-9');
    const now = Math.floor(Date.now() / 1000);
    const token = await sign({ sub: 'u1', iss: 'https://auth.example', iat: now, exp: now + 60 });
    t.strictSame(decodeProtectedHeader(token), { alg, kid: 'kid-9', typ: 'JWT' }, `${alg} header`);
    const { payload } = await jwtVerify(token, publicKey, { issuer: 'https://auth.example', algorithms: [alg] });
    t.equal(payload.sub, 'u1', `${alg} verifies`);
    const [h, , s] = token.split('.');
    const forged = `${h}.${Buffer.from(JSON.stringify({ sub: 'admin', iss: 'https://auth.example', exp: now + 60 })).toString('base64url')}.${s}`;
    await t.rejects(jwtVerify(forged, publicKey, { algorithms: [alg] }), `${alg}: the signature covers the payload`);
  }
});
