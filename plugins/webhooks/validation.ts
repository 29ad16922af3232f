/**
 * Checks of what an admin gives a webhook, each refusal an `invalid_argument` naming the field:
 * the event must be one the enabled plugins declare (each plugin's `events`); the endpoint an
 * absolute http(s) URL without credentials, not an IP literal the guarded client refuses; the
 * extra headers plain strings with names HTTP allows, none that the delivery itself sets.
 */
import { invalidArgument } from '../../core/errors.js';
import { OutboundError, outboundUrl, type AddressPolicy } from '../outbound/index.js';

export const MAX_HEADERS = 32;
const MAX_HEADER_VALUE = 4096;
/** RFC 9110 §5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the delivery sets itself (body framing, signature, routing). */
const RESERVED = new Set([
  'content-type',
  'content-length',
  'transfer-encoding',
  'host',
  'connection',
  'x-service-signature',
  'x-service-delivery-id',
]);

export function checkEventName(name: string, known: ReadonlySet<string>): void {
  if (!known.has(name)) {
    throw invalidArgument(
      `invalid event_name: "${name}" is not an event of this build; one of ${[...known].sort().join(', ')}`,
    );
  }
}

export function checkEndpoint(endpoint: string, policy: AddressPolicy): string {
  let url: URL;
  try {
    url = outboundUrl(endpoint);
  } catch (err) {
    throw invalidArgument(`invalid endpoint: ${err instanceof OutboundError ? err.message : 'not a URL'}`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (/^[\d.]+$/.test(host) || host.includes(':')) {
    const refusal = policy.refusal(host);
    if (refusal) throw invalidArgument(`invalid endpoint: ${refusal}`);
  }
  return endpoint;
}

export function checkHeaders(headers: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!headers) return out;
  const entries = Object.entries(headers);
  if (entries.length > MAX_HEADERS) throw invalidArgument(`invalid headers: at most ${MAX_HEADERS}`);
  for (const [name, value] of entries) {
    if (!TOKEN.test(name)) throw invalidArgument(`invalid headers: "${name}" is not a header name`);
    if (RESERVED.has(name.toLowerCase())) throw invalidArgument(`invalid headers: ${name} is set by the delivery`);
    if (typeof value !== 'string') throw invalidArgument(`invalid headers.${name}: expected a string`);
    if (value.length > MAX_HEADER_VALUE || /[\r\n\0]/.test(value)) {
      throw invalidArgument(`invalid headers.${name}: at most ${MAX_HEADER_VALUE} characters, no line breaks`);
    }
    out[name] = value;
  }
  return out;
}
