/** Loads signing and verification keys from the flags (PEM text, or a path to a PEM file). */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { exportJWK, importPKCS8, importSPKI, type JWK } from 'jose';
import { isHmac, type JwtType } from './rules.js';

/** A key tokens are verified with: the signing key, or a verify-only key kept for rotation. */
export interface VerificationKey {
  alg: JwtType;
  kid: string;
  verifyKey: CryptoKey | Uint8Array;
  /** Public JWK for /.well-known/jwks.json; null for HMAC (a shared secret is never published). */
  publicJwk: JWK | null;
}

export interface SigningKeys extends VerificationKey {
  signKey: CryptoKey | Uint8Array;
}

const hmacKid = (alg: JwtType, secret: string): string =>
  createHash('sha256').update(`${alg}:${secret}`).digest('base64url').slice(0, 16);
const jwkKid = (jwk: JWK): string => createHash('sha256').update(JSON.stringify(jwk)).digest('base64url').slice(0, 16);

async function publicKeyOf(
  alg: JwtType,
  pem: string,
  flag: string,
): Promise<{ verifyKey: CryptoKey; publicJwk: JWK; kid: string }> {
  let verifyKey: CryptoKey;
  try {
    verifyKey = (await importSPKI(pemOrFile(pem, flag), alg, { extractable: true })) as CryptoKey;
  } catch (err) {
    throw new Error(`${flag} is not an SPKI ${alg} public key: ${(err as Error).message}`);
  }
  const jwk = await exportJWK(verifyKey);
  const kid = jwkKid(jwk);
  return { verifyKey, kid, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

function pemOrFile(value: string, flag: string): string {
  const v = value.replace(/\\n/g, '\n').trim();
  if (v.startsWith('-----BEGIN')) return v;
  try {
    return readFileSync(v, 'utf8').trim();
  } catch {
    throw new Error(`${flag} must be PEM text or the path of a readable PEM file`);
  }
}

export async function loadSigningKeys(
  alg: JwtType,
  secret: string | undefined,
  privatePem?: string,
  publicPem?: string,
): Promise<SigningKeys> {
  if (isHmac(alg)) {
    const key = new TextEncoder().encode(secret ?? '');
    return { alg, kid: hmacKid(alg, secret ?? ''), signKey: key, verifyKey: key, publicJwk: null };
  }
  let signKey: CryptoKey;
  try {
    signKey = (await importPKCS8(pemOrFile(privatePem ?? '', '--jwt-private-key'), alg, {
      extractable: false,
    })) as CryptoKey;
  } catch (err) {
    throw new Error(`--jwt-private-key is not a PKCS#8 ${alg} private key: ${(err as Error).message}`);
  }
  return { alg, signKey, ...(await publicKeyOf(alg, publicPem ?? '', '--jwt-public-key')) };
}

/**
 * The verify-only secondary key of a rotation (--jwt-secondary-public-key for RS and ES types,
 * --jwt-secondary-secret for HS types), with the same algorithm as the signing key. Null when
 * none is configured.
 */
export async function loadSecondaryKey(
  alg: JwtType,
  secret: string | undefined,
  publicPem: string | undefined,
): Promise<VerificationKey | null> {
  if (isHmac(alg)) {
    if (!secret) return null;
    const key = new TextEncoder().encode(secret);
    return { alg, kid: hmacKid(alg, secret), verifyKey: key, publicJwk: null };
  }
  if (!publicPem) return null;
  return { alg, ...(await publicKeyOf(alg, publicPem, '--jwt-secondary-public-key')) };
}
