/**
 * RS256/384/512 and ES256/384/512 JWTs signed with node:crypto's asynchronous `sign` (RFC 7515
 * §7.1 compact serialization; RFC 7518 §3.3 RSASSA-PKCS1-v1_5, §3.4 ECDSA with the R||S
 * signature encoding). The private-key operation still runs on libuv's pool, off the event
 * loop; what this replaces is jose's SignJWT around it (claims builder, header validation,
 * WebCrypto's argument normalization and key cloning), which measured ~15% of the main thread's
 * time per client_credentials token. The header is serialized once per key. Verification stays
 * with jose (tokens/service.ts), whose results are cached.
 */
import { KeyObject, sign } from 'node:crypto';

export type AsymmetricAlg = 'RS256' | 'RS384' | 'RS512' | 'ES256' | 'ES384' | 'ES512';
/** RFC 7518 §3.3, §3.4: the digest each algorithm signs. */
export const ASYMMETRIC_HASH: Record<AsymmetricAlg, string> = {
  RS256: 'sha256',
  RS384: 'sha384',
  RS512: 'sha512',
  ES256: 'sha256',
  ES384: 'sha384',
  ES512: 'sha512',
};

export const isAsymmetricAlg = (alg: string): alg is AsymmetricAlg => alg in ASYMMETRIC_HASH;

/** node:crypto's key argument for `alg`: JWS ECDSA signatures are the fixed-width R||S pair, not DER (RFC 7518 §3.4). */
export function jwsKeyOptions(alg: AsymmetricAlg, key: KeyObject): { key: KeyObject; dsaEncoding?: 'ieee-p1363' } {
  return alg.startsWith('ES') ? { key, dsaEncoding: 'ieee-p1363' } : { key };
}

export function asymmetricSigner(
  alg: AsymmetricAlg,
  privateKey: CryptoKey | KeyObject,
  kid: string,
): (claims: Record<string, unknown>) => Promise<string> {
  const key = privateKey instanceof KeyObject ? privateKey : KeyObject.from(privateKey);
  const header = Buffer.from(JSON.stringify({ alg, kid, typ: 'JWT' })).toString('base64url');
  const hash = ASYMMETRIC_HASH[alg];
  const options = jwsKeyOptions(alg, key);
  return (claims) => {
    const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
    return new Promise((resolve, reject) => {
      sign(hash, Buffer.from(input), options, (err, signature) =>
        err ? reject(err) : resolve(`${input}.${signature.toString('base64url')}`),
      );
    });
  };
}
