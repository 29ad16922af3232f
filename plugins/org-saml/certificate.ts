/**
 * The IdP certificate an admin pins: a PEM certificate or its bare base64 body (as IdP metadata
 * carries it in ds:X509Certificate). It is parsed with node:crypto so that a mistyped
 * certificate is refused when it is configured, not at the first login.
 */
import { X509Certificate } from 'node:crypto';
import { invalidArgument } from '../../core/errors.js';

export function checkedCertificate(text: string): string {
  const body = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body)) throw invalidArgument('idp_certificate must be an X.509 certificate');
  const pem = `-----BEGIN CERTIFICATE-----\n${body.replace(/(.{64})/g, '$1\n').replace(/\n$/, '')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
  } catch {
    throw invalidArgument('idp_certificate must be an X.509 certificate');
  }
  return pem;
}
