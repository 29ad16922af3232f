/**
 * The URLs an admin configures (the IdP's SSO URL, an ACS URL): absolute https, or http on
 * loopback only (a local identity provider in development and tests); no credentials, no fragment.
 */
import { invalidArgument } from '../../core/errors.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

export function checkedUrl(text: string, field: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidArgument(`${field} must be an absolute URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
    throw invalidArgument(`${field} must use https`);
  if (url.username || url.password || url.hash)
    throw invalidArgument(`${field} must not carry credentials or a fragment`);
  return url.href;
}
