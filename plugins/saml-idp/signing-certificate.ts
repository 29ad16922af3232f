/**
 * A new IdP signing key: an RSA-2048 key pair and a self-signed X.509 certificate for it, made
 * with node:crypto's WebCrypto and @peculiar/x509. SAML metadata carries a signing key as a
 * certificate (SAML Metadata §2.4.1.1, ds:X509Certificate); relying SPs pin it, so its own
 * validity period is not what trust rests on (rotation is), and it is long.
 */
import { webcrypto } from 'node:crypto';
import { PemConverter, X509CertificateGenerator } from '@peculiar/x509';

/** XML-DSig's RSA-SHA256 (RFC 6931 §2.3.2), the algorithm every IdP key signs with. */
export const SIGNATURE_ALGORITHM = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const KEY_ALGORITHM = 'RS256';

const VALIDITY_MS = 10 * 365 * 24 * 60 * 60 * 1000;
const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

export interface NewSigningKey {
  certPem: string;
  privateKeyPem: string;
}

export async function newSigningKey(commonName: string): Promise<NewSigningKey> {
  const keys = await webcrypto.subtle.generateKey(
    { ...RSA, modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]) },
    true,
    ['sign', 'verify'],
  );
  const now = Date.now();
  const certificate = await X509CertificateGenerator.createSelfSigned(
    {
      // A DN attribute value: commas and the like are escaped by the library's name parser only
      // in some forms, so the common name is kept to plain characters.
      name: `CN=${commonName.replace(/[^A-Za-z0-9 ._-]/g, '-')}`,
      notBefore: new Date(now - 60_000),
      notAfter: new Date(now + VALIDITY_MS),
      signingAlgorithm: RSA,
      // node:crypto's WebCrypto types and the DOM's name the same objects.
      keys: keys as unknown as CryptoKeyPair,
    },
    webcrypto as unknown as Crypto,
  );
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', keys.privateKey);
  return {
    certPem: certificate.toString('pem'),
    privateKeyPem: PemConverter.encode(pkcs8, 'PRIVATE KEY'),
  };
}
