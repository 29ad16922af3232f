/** Loads signing and verification keys from the flags (PEM text, or a path to a PEM file). */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { exportJWK, importPKCS8, importSPKI, type JWK } from 'jose';
import { isHmac, type JwtType } from './rules.js';

export interface SigningKeys {
  alg: JwtType;
  kid: string;
  signKey: CryptoKey | Uint8Array;
  verifyKey: CryptoKey | Uint8Array;
  /** Public JWK for /.well-known/jwks.json; null for HMAC (a shared secret is never published). */
  publicJwk: JWK | null;
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

export async function loadSigningKeys(alg: JwtType, secret: string | undefined, privatePem?: string, publicPem?: string): Promise<SigningKeys> {
  if (isHmac(alg)) {
    const key = new TextEncoder().encode(secret ?? '');
    const kid = createHash('sha256').update(`${alg}:${secret}`).digest('base64url').slice(0, 16);
    return { alg, kid, signKey: key, verifyKey: key, publicJwk: null };
  }
  let signKey: CryptoKey;
  let verifyKey: CryptoKey;
  try {
    signKey = (await importPKCS8(pemOrFile(privatePem ?? '', '--jwt-private-key'), alg, { extractable: false })) as CryptoKey;
  } catch (err) {
    throw new Error(`--jwt-private-key is not a PKCS#8 ${alg} private key: ${(err as Error).message}`);
  }
  try {
    verifyKey = (await importSPKI(pemOrFile(publicPem ?? '', '--jwt-public-key'), alg, { extractable: true })) as CryptoKey;
  } catch (err) {
    throw new Error(`--jwt-public-key is not an SPKI ${alg} public key: ${(err as Error).message}`);
  }
  const jwk = await exportJWK(verifyKey);
  const kid = createHash('sha256').update(JSON.stringify(jwk)).digest('base64url').slice(0, 16);
  return { alg, kid, signKey, verifyKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}
