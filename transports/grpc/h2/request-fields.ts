/**
 * The header fields of a request, checked as RFC 9113 §8.2 and §8.3 require and gathered into one
 * record. A request that breaks a rule is malformed (§8.1.1): its stream is reset with
 * PROTOCOL_ERROR and it never reaches a handler.
 */
import type { RequestHeaders } from './stream.js';

export class MalformedRequest extends Error {}

const PSEUDO = new Set([':method', ':scheme', ':authority', ':path']);
/** §8.2.2: connection-specific fields have no place in HTTP/2. */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);
/** §8.2.1: a name has no control character, space, uppercase letter, DEL or byte above 0x7f. */
const FORBIDDEN_IN_NAME = /[^\x21-\x40\x5b-\x7e]/;
/** §8.2.1: no NUL, CR or LF in a value. */
const FORBIDDEN_IN_VALUE = /[\0\r\n]/;
/** §8.2.1: a regular field's value neither starts nor ends with a space or a tab. */
const EDGE_WHITESPACE = /^[ \t]|[ \t]$/;

function checkField(name: string, value: string): void {
  if (name.length === 0 || FORBIDDEN_IN_NAME.test(name))
    throw new MalformedRequest(`field name ${JSON.stringify(name)}`);
  if (FORBIDDEN_IN_VALUE.test(value) || EDGE_WHITESPACE.test(value))
    throw new MalformedRequest(`field ${name} has a forbidden character`);
  if (CONNECTION_SPECIFIC.has(name)) throw new MalformedRequest(`connection-specific field ${name}`);
  if (name === 'te' && value !== 'trailers') throw new MalformedRequest('te other than trailers');
}

/** `fields` is the decoder's flat `[name, value, ...]` list. */
export function checkRequestFields(fields: readonly string[]): RequestHeaders {
  const headers: RequestHeaders = Object.create(null) as RequestHeaders;
  let regularSeen = false;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!;
    const value = fields[i + 1]!;
    if (name.charCodeAt(0) === 58 /* ':' */) {
      if (regularSeen || !PSEUDO.has(name) || headers[name] !== undefined)
        throw new MalformedRequest(`pseudo-header ${name}`);
      if (FORBIDDEN_IN_VALUE.test(value)) throw new MalformedRequest(`field ${name} has a forbidden character`);
      headers[name] = value;
      continue;
    }
    regularSeen = true;
    checkField(name, value);
    const prior = headers[name];
    if (prior === undefined) headers[name] = name === 'set-cookie' ? [value] : value;
    else if (Array.isArray(prior)) prior.push(value);
    else headers[name] = `${prior}${name === 'cookie' ? '; ' : ', '}${value}`; // §8.2.3 for cookie
  }
  if (!headers[':method'] || !headers[':scheme'] || !headers[':path'])
    throw new MalformedRequest('a required pseudo-header is missing');
  return headers;
}

/**
 * The body length a request declares (§8.1.1), or -1 without a content-length. Repeated fields
 * arrive joined with ", " and are malformed unless they agree (RFC 9110 §8.6 lets a recipient
 * take identical values as one).
 */
export function contentLengthOf(headers: RequestHeaders): number {
  const value = headers['content-length'];
  if (value === undefined) return -1;
  const values = (value as string).split(', ');
  if (!values.every((v) => v === values[0]) || !/^[0-9]{1,15}$/.test(values[0]!))
    throw new MalformedRequest('content-length is not a length');
  return Number(values[0]);
}

/** Trailers carry no pseudo-header (§8.1) and follow the same field rules. */
export function checkTrailerFields(fields: readonly string[]): void {
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i]!;
    if (name.charCodeAt(0) === 58) throw new MalformedRequest(`pseudo-header ${name} in trailers`);
    checkField(name, fields[i + 1]!);
  }
}
