/**
 * HS256/384/512 JWTs signed and verified synchronously with node:crypto HMAC (RFC 7515 §5,
 * compact serialization; RFC 7518 §3.2; RFC 7519 §7.2 for the claim checks).
 *
 * Why not jose here: jose 6 computes every MAC through WebCrypto, which queues a job on libuv's
 * thread pool and resolves a promise. For a MAC over a few hundred bytes that hand-off costs far
 * more than the MAC itself (it was ~10% of a login's main-thread time, two tokens per login).
 * RS and ES tokens are signed in asymmetric-sign.ts and verified in asymmetric-verify.ts.
 *
 * Verification: a constant-time MAC comparison, then the header and claim rules that every JWT
 * verified here shares (compact-jws.ts), as jose's jwtVerify applied them.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { acceptedPayload, b64json, splitCompact } from './compact-jws.js';

export type HmacAlg = 'HS256' | 'HS384' | 'HS512';
const HASH: Record<HmacAlg, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

export const isHmacAlg = (alg: string): alg is HmacAlg => alg in HASH;

export interface HmacJws {
  sign(claims: Record<string, unknown>): string;
  /** The payload when the token is valid at `nowSeconds`, else null (never throws). */
  verify(token: string, nowSeconds: number): Record<string, unknown> | null;
}

export function hmacJws(alg: HmacAlg, secret: Uint8Array, kid: string, issuer: string): HmacJws {
  const hash = HASH[alg];
  const key = Buffer.from(secret);
  const header = b64json({ alg, kid, typ: 'JWT' });
  const mac = (input: string) => createHmac(hash, key).update(input).digest();

  return {
    sign(claims) {
      const input = `${header}.${b64json(claims)}`;
      return `${input}.${mac(input).toString('base64url')}`;
    },
    verify(token, nowSeconds) {
      const jws = splitCompact(token);
      if (!jws) return null;
      const expected = mac(jws.input);
      if (jws.signature.length !== expected.length || !timingSafeEqual(jws.signature, expected)) return null;
      return acceptedPayload(jws, alg, issuer, nowSeconds);
    },
  };
}
