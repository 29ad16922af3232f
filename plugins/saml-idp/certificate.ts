/**
 * A service provider's certificate as an admin gives it: a PEM certificate or its bare base64
 * body (as SP metadata carries it in ds:X509Certificate). Parsed with node:crypto, so that a
 * mistyped certificate is refused when it is configured, not at the first signed request.
 */
import { X509Certificate } from 'node:crypto';
import { invalidArgument } from '../../core/errors.js';

/** The certificate's base64 body, without PEM armour or whitespace. */
export const certificateBody = (pem: string): string =>
  pem.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');

export function pemOf(body: string): string {
  return `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
}

export function checkedCertificate(text: string, field: string): string {
  const body = certificateBody(text);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw invalidArgument(`${field} must be an X.509 certificate`);
  const pem = pemOf(body);
  try {
    new X509Certificate(pem);
  } catch {
    throw invalidArgument(`${field} must be an X.509 certificate`);
  }
  return pem;
}
