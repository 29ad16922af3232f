/**
 * RS256/384/512 and ES256/384/512 JWTs verified with node:crypto (RFC 7518 §3.3 RSASSA-PKCS1-v1_5,
 * §3.4 ECDSA with the R||S signature encoding), then the header and claim rules every JWT here
 * shares (compact-jws.ts).
 *
 * Why not jose's jwtVerify: it verifies through WebCrypto, which normalizes its arguments, queues
 * a job on libuv's pool and resolves a promise per token. For an RSA public-key operation
 * (~30 µs for 2048 bits, ~70 µs for 4096, measured on a 2-core VM) that hand-off costs the event
 * loop about as much as the operation itself (a cold RS256 validate_jwt_token cost the server
 * ~115-135 µs of CPU, ~40 µs of it on the pool). So the cheap cases run at once on
 * the event loop: every RS* key, and ES256 (~70 µs). ES384 and ES512 cost 0.7 and 1.5 ms per
 * verification, too long to hold the loop: they go to libuv's pool through node:crypto's
 * callback form, still without WebCrypto's overhead.
 */
import { KeyObject, verify } from 'node:crypto';
import { ASYMMETRIC_HASH, jwsKeyOptions, type AsymmetricAlg } from './asymmetric-sign.js';
import { acceptedPayload, splitCompact, type CompactJws } from './compact-jws.js';

/** RFC 7518 §3.4: the curve each ES algorithm is defined on. */
const CURVE: Partial<Record<AsymmetricAlg, string>> = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' };
/** Verified off the event loop (see the header). */
const ON_POOL = new Set<AsymmetricAlg>(['ES384', 'ES512']);

/** The payload when the token is valid at `nowSeconds`, else null; never throws or rejects. */
export type AsymmetricVerifier = (
  token: string,
  nowSeconds: number,
) => Record<string, unknown> | null | Promise<Record<string, unknown> | null>;

/**
 * A verifier for tokens signed with `alg` by the holder of `publicKey`'s private key. The key
 * must fit the algorithm (RSA of at least 2048 bits, RFC 7518 §3.3; ECDSA on the algorithm's
 * curve): a key that does not is a configuration error, reported here, at boot.
 */
export function asymmetricVerifier(
  alg: AsymmetricAlg,
  publicKey: CryptoKey | KeyObject,
  issuer: string,
): AsymmetricVerifier {
  const key = publicKey instanceof KeyObject ? publicKey : KeyObject.from(publicKey);
  const details = key.asymmetricKeyDetails ?? {};
  if (
    alg.startsWith('RS')
      ? key.asymmetricKeyType !== 'rsa' || (details.modulusLength ?? 0) < 2048
      : key.asymmetricKeyType !== 'ec' || details.namedCurve !== CURVE[alg]
  ) {
    throw new Error(
      `the ${alg} verification key is not ${alg.startsWith('RS') ? 'an RSA key of at least 2048 bits' : `an EC key on ${CURVE[alg]}`}`,
    );
  }
  const hash = ASYMMETRIC_HASH[alg];
  const options = jwsKeyOptions(alg, key);

  if (ON_POOL.has(alg)) {
    return (token, nowSeconds) => {
      const jws = splitCompact(token);
      if (!jws) return null;
      return new Promise((resolve) => {
        try {
          verify(hash, Buffer.from(jws.input), options, jws.signature, (err, valid) =>
            resolve(!err && valid ? acceptedPayload(jws, alg, issuer, nowSeconds) : null),
          );
        } catch {
          resolve(null);
        }
      });
    };
  }
  const signatureValid = (jws: CompactJws): boolean => {
    try {
      return verify(hash, Buffer.from(jws.input), options, jws.signature);
    } catch {
      // A signature of the wrong length for the curve, say: not a valid token.
      return false;
    }
  };
  return (token, nowSeconds) => {
    const jws = splitCompact(token);
    return jws && signatureValid(jws) ? acceptedPayload(jws, alg, issuer, nowSeconds) : null;
  };
}
