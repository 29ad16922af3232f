/**
 * The one error the guarded outbound client throws. Callers map `code` to their own protocol
 * (a webhook log row, an OAuth `invalid_client_metadata`, a ServiceError); `message` is safe to
 * show to an admin and never holds a response body or a header value.
 */
export type OutboundErrorCode =
  /** Not an absolute http(s) URL, or a header or method undici refuses. */
  | 'invalid_request'
  /** The host resolves to (or is) an address outside the public unicast space and no allowed CIDR. */
  | 'address_refused'
  /** The host name has no address. */
  | 'dns_failure'
  /** No complete answer within `timeoutMs`. */
  | 'timeout'
  /** The answer's body is longer than `maxBytes`. */
  | 'too_large'
  /** Connection refused or reset, TLS failure, a malformed answer. */
  | 'network';

export class OutboundError extends Error {
  readonly code: OutboundErrorCode;

  constructor(code: OutboundErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OutboundError';
    this.code = code;
  }
}

/** Whether `err`, or an error it wraps (undici wraps connector errors), is an OutboundError. */
export function findOutboundError(err: unknown): OutboundError | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (e instanceof OutboundError) return e;
  }
  return undefined;
}
