/**
 * Key rules checked at startup: HMAC types need --jwt-secret; RSA/ECDSA types need
 * --jwt-private-key and --jwt-public-key, and then --encryption-key unless --jwt-secret is also set.
 * The verify-only rotation key must be of the signing key's kind (a secret for HS, a public key for
 * RS/ES): tokens are verified with the algorithm of --jwt-type only (RFC 8725 §3.1).
 */
import type { Config } from '../../core/config.js';

export const HMAC_TYPES = ['HS256', 'HS384', 'HS512'] as const;
export const ASYMMETRIC_TYPES = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512'] as const;
export const JWT_TYPES = [...HMAC_TYPES, ...ASYMMETRIC_TYPES] as const;
export type JwtType = (typeof JWT_TYPES)[number];

export const isHmac = (t: string): boolean => (HMAC_TYPES as readonly string[]).includes(t);

export function checkKeyRules(config: Config): string | undefined {
  const type = config.string('jwt-type');
  if (!type) return '--jwt-type is required (HS256, HS384, HS512, RS256, RS384, RS512, ES256, ES384 or ES512)';
  if (!(JWT_TYPES as readonly string[]).includes(type))
    return `--jwt-type "${type}" is not supported; use one of ${JWT_TYPES.join(', ')}`;
  if (isHmac(type)) {
    if (!config.has('jwt-secret')) return `--jwt-secret is required for --jwt-type ${type}`;
    if (config.has('jwt-secondary-public-key'))
      return `--jwt-secondary-public-key is for RS and ES types; use --jwt-secondary-secret with --jwt-type ${type}`;
    if (config.has('jwt-secondary-secret') && config.string('jwt-secondary-secret') === config.string('jwt-secret')) {
      return '--jwt-secondary-secret must differ from --jwt-secret';
    }
    return undefined;
  }
  if (config.has('jwt-secondary-secret'))
    return `--jwt-secondary-secret is for HS types; use --jwt-secondary-public-key with --jwt-type ${type}`;
  if (!config.has('jwt-private-key') || !config.has('jwt-public-key')) {
    return `--jwt-private-key and --jwt-public-key are required for --jwt-type ${type}`;
  }
  if (!config.has('encryption-key') && !config.has('jwt-secret')) {
    return `--encryption-key is required when --jwt-type ${type} is used without --jwt-secret`;
  }
  return undefined;
}
