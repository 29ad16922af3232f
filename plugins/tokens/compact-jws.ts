/**
 * What every JWT verification here shares, whatever the signature (hmac-jws.ts for HS*,
 * asymmetric-verify.ts for RS* and ES*): the compact serialization taken apart (RFC 7515 §7.1),
 * the protected header's rules and the registered claims (RFC 7519 §4.1, §7.2), as jose's
 * jwtVerify applied them with `{ issuer, algorithms: [alg] }` and no clock tolerance.
 */

/** A token split into its signing input and signature, the signature decoded. */
export interface CompactJws {
  /** `header.payload`, what the signature covers. */
  input: string;
  signature: Buffer;
  /** Where the header segment ends (the first dot). */
  headerEnd: number;
}

export const b64json = (value: unknown): string => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

/**
 * Three non-empty-headed parts with a canonically encoded signature, or null. Node's decoder
 * skips characters outside the alphabet and padding, so `<token>!!` or `<token>=` decoded to the
 * same signature: one token, several texts, each a separate entry for anything keyed by the text.
 * Only the canonical encoding is the token (jose refuses the others too).
 */
export function splitCompact(token: string): CompactJws | null {
  const first = token.indexOf('.');
  const second = token.indexOf('.', first + 1);
  if (first <= 0 || second <= first + 1 || token.indexOf('.', second + 1) !== -1) return null;
  const text = token.slice(second + 1);
  const signature = Buffer.from(text, 'base64url');
  if (signature.toString('base64url') !== text) return null;
  return { input: token.slice(0, second), signature, headerEnd: first };
}

/**
 * After the signature checked out: the payload, when the header names exactly `alg` with no
 * `crit` (no extension is understood here) and no `b64`, the payload is a JSON object and its
 * claims hold at `nowSeconds`; else null. The signature covers the header, but the header still
 * has to say what was verified.
 */
export function acceptedPayload(
  jws: CompactJws,
  alg: string,
  issuer: string,
  nowSeconds: number,
): Record<string, unknown> | null {
  const head = parseObject(jws.input.slice(0, jws.headerEnd));
  if (!head || head.alg !== alg || 'crit' in head || 'b64' in head) return null;
  const payload = parseObject(jws.input.slice(jws.headerEnd + 1));
  if (!payload) return null;
  return claimsValid(payload, issuer, nowSeconds) ? payload : null;
}

function parseObject(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * RFC 7519 §4.1: registered claims, with no clock tolerance (as the jose calls used none). `exp`
 * is optional in the RFC but required here: every token this server signs has one, and one
 * without it, were a key ever misused to sign such a thing, would never stop working.
 */
function claimsValid(p: Record<string, unknown>, issuer: string, now: number): boolean {
  if (issuer && p.iss !== issuer) return false;
  for (const name of ['nbf', 'iat'] as const) {
    if (p[name] !== undefined && typeof p[name] !== 'number') return false;
  }
  if (typeof p.exp !== 'number' || p.exp <= now) return false;
  if (typeof p.nbf === 'number' && p.nbf > now) return false;
  return true;
}
