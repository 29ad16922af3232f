/**
 * One verification key's token check: the payload when the token is valid (signature, alg,
 * iss, exp, nbf), else null. HS* keys verify with node:crypto HMAC (hmac-jws.ts), RS and ES keys
 * with node:crypto's public-key verification (asymmetric-verify.ts says why not jose); both apply
 * the header and claim rules jose's jwtVerify applied (compact-jws.ts). Used for user tokens
 * (tokens/service.ts) and service-account tokens (oauth-server/service-tokens.ts) alike.
 */
import type { JWTPayload } from 'jose';
import type { KeysService } from '../keys/index.js';
import { isAsymmetricAlg } from './asymmetric-sign.js';
import { asymmetricVerifier } from './asymmetric-verify.js';
import { hmacJws, isHmacAlg } from './hmac-jws.js';

export type VerificationKey = KeysService['verifiers'][number];

/** Never throws or rejects; `nowSeconds` may have a fraction. */
export type TokenVerifier = (token: string, nowSeconds: number) => Promise<JWTPayload | null> | JWTPayload | null;

function verifierFor(k: VerificationKey, issuer: string): TokenVerifier {
  if (isHmacAlg(k.alg) && k.verifyKey instanceof Uint8Array) {
    const hmac = hmacJws(k.alg, k.verifyKey, k.kid, issuer);
    return (token, now) => hmac.verify(token, Math.floor(now)) as JWTPayload | null;
  }
  if (k.verifyKey instanceof Uint8Array || !isAsymmetricAlg(k.alg))
    throw new Error(`no verifier for a ${k.alg} key of this kind`);
  const verifyAsymmetric = asymmetricVerifier(k.alg, k.verifyKey, issuer);
  return (token, now) => verifyAsymmetric(token, Math.floor(now)) as Promise<JWTPayload | null> | JWTPayload | null;
}

const made = new WeakMap<VerificationKey, { issuer: string; verify: TokenVerifier }>();

/**
 * The verifier of key `k` for `issuer`, made once per key record and shared by every caller
 * (user tokens and service-account tokens alike; a record lives as long as its keys service).
 */
export function verifierOf(k: VerificationKey, issuer: string): TokenVerifier {
  const known = made.get(k);
  if (known && known.issuer === issuer) return known.verify;
  const verify = verifierFor(k, issuer);
  made.set(k, { issuer, verify });
  return verify;
}
