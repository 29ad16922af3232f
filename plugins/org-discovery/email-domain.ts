/**
 * The domain of an email address for discovery, through the same normalization domain writes use
 * (org-domains normalizeDomain), or null when the address is malformed. Only the shape of an
 * address is checked: discovery answers one uniform 400 for anything malformed and tells nothing
 * about why.
 */
import { normalizeDomain } from '../org-domains/index.js';

/** Characters that never appear unquoted in a local part (RFC 5322 §3.2.3 specials, controls, space). */
const BAD_LOCAL = /[\s<>()[\],;:"\\\u0000-\u001f\u007f]/;

export function emailDomain(email: unknown): string | null {
  if (typeof email !== 'string' || email.length > 320) return null;
  const at = email.lastIndexOf('@');
  if (at < 1 || email.indexOf('@') !== at) return null;
  const local = email.slice(0, at);
  if (local.length > 64 || BAD_LOCAL.test(local) || local.startsWith('.') || local.endsWith('.')) return null;
  return normalizeDomain(email.slice(at + 1));
}
