/**
 * Domain normalization and guards: IDNA/UTS-46 to
 * lowercase punycode, no scheme, path, port or wildcard; no bare TLD, no public suffix (ICANN or
 * private section of the Public Suffix List, via tldts), no consumer mail provider. Writes and
 * lookups (discovery) call the same function, so a stored domain and an email's domain compare
 * as equal strings.
 */
import { domainToASCII } from 'node:url';
import { parse } from 'tldts';
import { invalidArgument, type ServiceError } from '../../core/errors.js';
import { CONSUMER_MAIL_DOMAINS } from './consumer-mail.js';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
/** A scheme, path, port, user info, wildcard, query, fragment or whitespace: never part of a domain. */
const NOT_A_HOST = /[\s/\\:@*?#%[\]]/;

/** The normalized form of a domain name, or null when it is not one (an IP address is not one). */
export function normalizeDomain(input: string): string | null {
  let s = input.trim();
  if (s.length === 0 || s.length > 300 || NOT_A_HOST.test(s)) return null;
  // One trailing dot is the fully-qualified spelling of the same name (RFC 1034 §3.1).
  if (s.endsWith('.')) s = s.slice(0, -1);
  const ascii = domainToASCII(s);
  if (!ascii || ascii.length > 253) return null;
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l))) return null;
  if (/^[0-9]+$/.test(labels[labels.length - 1])) return null;
  return ascii;
}

export type GuardRefusal = 'invalid' | 'public_suffix' | 'consumer_mail';

/** Why a normalized domain may not be claimed by an organization, or null when it may. */
export function guardRefusal(domain: string): GuardRefusal | null {
  const parsed = parse(domain, { allowPrivateDomains: true });
  if (parsed.isIp) return 'invalid';
  // `domain` is null for a bare TLD and for any public suffix (co.uk, github.io).
  if (!parsed.domain) return 'public_suffix';
  if (CONSUMER_MAIL_DOMAINS.has(parsed.domain)) return 'consumer_mail';
  return null;
}

const MESSAGES: Record<GuardRefusal, string> = {
  invalid: 'invalid domain',
  public_suffix: 'invalid domain: a top-level domain or public suffix cannot be claimed',
  consumer_mail: 'invalid domain: a consumer mail provider cannot be claimed',
};

/** The normalized domain an organization may claim, or the `invalid_argument` that refuses it. */
export function claimableDomain(input: string): string {
  const domain = normalizeDomain(input);
  if (!domain) throw refusal('invalid');
  const why = guardRefusal(domain);
  if (why) throw refusal(why);
  return domain;
}

const refusal = (why: GuardRefusal): ServiceError => invalidArgument(MESSAGES[why]);
