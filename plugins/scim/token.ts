/**
 * SCIM bearer tokens: `scim_<endpoint id>.<secret>`, the secret
 * 256 random bits. Only the secret's digest is stored; a token is found by its endpoint id and
 * its secret compared in constant time, so a wrong token costs the same whatever part is wrong.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'scim_';
const DOMAIN = 'latchkey scim token v1\0';

export function newScimToken(endpointId: string): { token: string; digest: string } {
  const secret = randomBytes(32).toString('base64url');
  return { token: `${PREFIX}${endpointId}.${secret}`, digest: digestOf(secret) };
}

export function digestOf(secret: string): string {
  return 'sha256$' + hash('sha256', DOMAIN + secret, 'base64url');
}

/** The endpoint id and secret of a token's text, or null when it is not shaped like one. */
export function splitToken(token: string): { endpointId: string; secret: string } | null {
  if (!token.startsWith(PREFIX) || token.length > 256) return null;
  const dot = token.indexOf('.', PREFIX.length);
  if (dot < 0) return null;
  const endpointId = token.slice(PREFIX.length, dot);
  const secret = token.slice(dot + 1);
  return endpointId && secret && endpointId.length <= 64 ? { endpointId, secret } : null;
}

/** Constant-time comparison of the stored digest with the digest of the given secret. */
export function secretMatches(storedDigest: string, secret: string): boolean {
  const a = Buffer.from(storedDigest, 'utf8');
  const b = Buffer.from(digestOf(secret), 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The work of one comparison, for a token whose endpoint does not exist. */
export const DUMMY_DIGEST = digestOf('');
