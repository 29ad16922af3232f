/**
 * One verification key's token check with jose's jwtVerify: the payload when the token is valid,
 * else null. jose applies the signature, the algorithm pinned to the key's (so `none` and any
 * other algorithm are refused), the protected header's rules (`crit`), the issuer, and the
 * registered claims (RFC 7519 §4.1: `exp`, required here, `nbf` and `iat` numbers, no clock
 * tolerance); the canonical signature encoding and the `b64` header are checked here besides.
 * Used for user tokens (tokens/service.ts) and service-account tokens
 * (oauth-server/service-tokens.ts) alike.
 */
import { createSecretKey, type KeyObject } from 'node:crypto';
import { jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import type { KeysService } from '../keys/index.js';

export type VerificationKey = KeysService['verifiers'][number];

/** Never rejects; `nowSeconds` may have a fraction. */
export type TokenVerifier = (token: string, nowSeconds: number) => Promise<JWTPayload | null>;

/** The key object jose verifies with, made once: an HMAC secret as a KeyObject, RS and ES keys as loaded. */
export const keyObjectOf = (key: CryptoKey | Uint8Array): CryptoKey | KeyObject =>
  key instanceof Uint8Array ? createSecretKey(key) : key;

/** Each base64url character's value (RFC 4648 §5), -1 for any other character code below 128. */
const BASE64URL_VALUES = Int8Array.from({ length: 128 }, (_, code) =>
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'.indexOf(String.fromCharCode(code)),
);

/**
 * Only the canonical base64url text of a signature is the token: a lenient decoder takes
 * `<token>=` (padding) or a last character with its unused bits set as the same signature, and
 * each such text would be another entry for anything keyed by the text (the verified-token cache).
 * Canonical (RFC 4648 §3.5): only alphabet characters, no padding, a length that a whole number of
 * bytes gives (never 1 more than a multiple of 4), and zero bits in the last character beyond the
 * last byte (4 of them after 2 characters of a group, 2 after 3). Read in place, without decoding.
 */
function canonicalSignature(token: string): boolean {
  const start = token.lastIndexOf('.') + 1;
  const length = token.length - start;
  if (length % 4 === 1) return false;
  let last = 0;
  for (let i = start; i < token.length; i++) {
    const code = token.charCodeAt(i);
    last = code < 128 ? BASE64URL_VALUES[code] : -1;
    if (last < 0) return false;
  }
  const unusedBits = length % 4 === 2 ? 0x0f : length % 4 === 3 ? 0x03 : 0;
  return (last & unusedBits) === 0;
}

function verifierFor(k: VerificationKey, issuer: string): TokenVerifier {
  const key = keyObjectOf(k.verifyKey);
  const algorithms = [k.alg];
  // `exp` is optional in RFC 7519 but required here: every token this server signs has one, and
  // one without it, were a key ever misused to sign such a thing, would never stop working.
  const requiredClaims = ['exp'];
  return async (token, now) => {
    if (!canonicalSignature(token)) return null;
    const options: JWTVerifyOptions = { algorithms, requiredClaims, currentDate: new Date(now * 1000) };
    if (issuer) options.issuer = issuer;
    try {
      const { payload, protectedHeader } = await jwtVerify(token, key, options);
      // RFC 7797 §6: `b64` must be listed in `crit`, which jose then applies; outside `crit` jose
      // ignores it. No token of ours carries it: refused.
      return 'b64' in protectedHeader ? null : payload;
    } catch {
      return null;
    }
  };
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
