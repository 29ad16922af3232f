/**
 * HS256/384/512 JWTs signed and verified synchronously with node:crypto HMAC (RFC 7515 §5,
 * compact serialization; RFC 7518 §3.2; RFC 7519 §7.2 for the claim checks).
 *
 * Why not jose here: jose 6 computes every MAC through WebCrypto, which queues a job on libuv's
 * thread pool and resolves a promise. For a MAC over a few hundred bytes that hand-off costs far
 * more than the MAC itself (it was ~10% of a login's main-thread time, two tokens per login).
 * RS and ES tokens are signed in asymmetric-sign.ts (on libuv's pool) and verified with jose.
 *
 * What verification checks, as jose's jwtVerify does with `{ issuer, algorithms: [alg] }`:
 * a three-part compact JWS whose protected header is a JSON object naming exactly the expected
 * `alg` with no `crit` (we understand no extensions) and no `b64`; a constant-time MAC
 * comparison; a JSON object payload; `iss` equal to the issuer when one is configured; `exp`,
 * `nbf`, `iat` numeric when present, `exp` in the future and `nbf` not in the future.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type HmacAlg = 'HS256' | 'HS384' | 'HS512';
const HASH: Record<HmacAlg, string> = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' };

export const isHmacAlg = (alg: string): alg is HmacAlg => alg in HASH;

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');

export interface HmacJws {
  sign(claims: Record<string, unknown>): string;
  /** The payload when the token is valid at `nowSeconds`, else null (never throws). */
  verify(token: string, nowSeconds: number): Record<string, unknown> | null;
}

export function hmacJws(alg: HmacAlg, secret: Uint8Array, kid: string, issuer: string): HmacJws {
  const hash = HASH[alg];
  const key = Buffer.from(secret);
  const header = b64(JSON.stringify({ alg, kid, typ: 'JWT' }));
  const mac = (input: string) => createHmac(hash, key).update(input).digest();

  return {
    sign(claims) {
      const input = `${header}.${b64(JSON.stringify(claims))}`;
      return `${input}.${mac(input).toString('base64url')}`;
    },
    verify(token, nowSeconds) {
      const first = token.indexOf('.');
      const second = token.indexOf('.', first + 1);
      if (first <= 0 || second <= first + 1 || token.indexOf('.', second + 1) !== -1) return null;
      const input = token.slice(0, second);
      const signature = token.slice(second + 1);
      const given = Buffer.from(signature, 'base64url');
      // Node's decoder skips characters outside the alphabet and padding, so `<token>!!` or
      // `<token>=` decoded to the same MAC and passed, where jose (RS, ES) refuses them: one
      // token, several texts, each a separate entry for anything keyed by the text. Only the
      // canonical encoding is the token.
      if (given.toString('base64url') !== signature) return null;
      const expected = mac(input);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      // The MAC covers the header, but the header still has to say what we verified.
      const head = parseObject(token.slice(0, first));
      if (!head || head.alg !== alg || 'crit' in head || 'b64' in head) return null;
      const payload = parseObject(token.slice(first + 1, second));
      if (!payload) return null;
      return claimsValid(payload, issuer, nowSeconds) ? payload : null;
    },
  };
}

function parseObject(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** RFC 7519 §4.1: registered claims, with no clock tolerance (as the jose calls used none). */
function claimsValid(p: Record<string, unknown>, issuer: string, now: number): boolean {
  if (issuer && p.iss !== issuer) return false;
  for (const name of ['exp', 'nbf', 'iat'] as const) {
    if (p[name] !== undefined && typeof p[name] !== 'number') return false;
  }
  if (typeof p.exp === 'number' && p.exp <= now) return false;
  if (typeof p.nbf === 'number' && p.nbf > now) return false;
  return true;
}
