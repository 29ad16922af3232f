/**
 * Metadata is HTTP/2 headers (PROTOCOL-HTTP2.md, "Custom-Metadata"). Requests: text entries
 * become the context's header record (repeated entries joined the HTTP way, `; ` for cookies);
 * binary `-bin` entries, pseudo-headers and the protocol's own headers are not metadata.
 * Responses: entries are sent only when HTTP/2 can carry them; a name or value gRPC cannot carry
 * (non-ASCII, reserved) is dropped rather than failing the call.
 */
import type { OutgoingHeaders } from '../h2/hpack/encoder.js';
import type { RequestHeaders } from '../h2/stream.js';

const PROTOCOL_HEADERS = new Set([
  'content-type',
  'te',
  'grpc-timeout',
  'grpc-encoding',
  'grpc-accept-encoding',
  'content-length',
]);

export function requestMetadata(headers: RequestHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key in headers) {
    if (key.charCodeAt(0) === 58 /* ':' */ || PROTOCOL_HEADERS.has(key) || key.endsWith('-bin')) continue;
    const value = headers[key];
    if (typeof value === 'string') out[key] = value;
    else if (Array.isArray(value)) out[key] = value.join(key === 'cookie' ? '; ' : ', ');
  }
  return out;
}

const NAME = /^[0-9a-z_.-]+$/;
const VALUE = /^[\x20-\x7e]*$/;
const FORBIDDEN = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'content-type',
  'content-length',
  'host',
]);

function carriable(name: string, value: string): boolean {
  return NAME.test(name) && !name.startsWith('grpc-') && !FORBIDDEN.has(name) && VALUE.test(value);
}

/** Adds response metadata to an HTTP/2 header block; `set-cookie` may repeat, others join with `, `. */
export function addMetadata(into: OutgoingHeaders, name: string, value: string): void {
  const key = name.toLowerCase();
  if (!carriable(key, value)) return;
  const prior = into[key];
  if (prior === undefined) into[key] = key === 'set-cookie' ? [value] : value;
  else if (Array.isArray(prior)) prior.push(value);
  else into[key] = `${String(prior)}, ${value}`;
}
