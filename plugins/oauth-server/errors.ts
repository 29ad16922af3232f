/**
 * OAuth protocol errors (RFC 6749 §4.1.2.1, §5.2; RFC 6750 §3.1; RFC 7009 §2.2.1). They are not
 * ServiceErrors: the token endpoint answers `{error, error_description}`, not the REST envelope.
 */
import type { RawResponse } from '../../core/plugin.js';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'unsupported_response_type'
  | 'server_error'
  | 'login_required'
  | 'invalid_token'
  | 'invalid_target'
  | 'unsupported_token_type'
  | 'insufficient_scope';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === 'invalid_client' || error === 'invalid_token' ? 401 : 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const invalidRequest = (d: string) => new OAuthError('invalid_request', d);
export const invalidGrant = (d: string) => new OAuthError('invalid_grant', d);
export const invalidClient = (d = 'client authentication failed') => new OAuthError('invalid_client', d);

/** Every token-endpoint answer is uncacheable (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

/** The JSON error answer; `invalid_client` names the scheme the client should use (§5.2). */
export function oauthErrorResponse(err: OAuthError, basicAttempted = false): RawResponse {
  const headers: Record<string, string> = { ...NO_STORE };
  // RFC 6749 §5.2: the Basic challenge answers a client that tried the Authorization header.
  if (err.error === 'invalid_client' && basicAttempted) headers['www-authenticate'] = 'Basic realm="latchkey"';
  if (err.error === 'invalid_token')
    headers['www-authenticate'] =
      `Bearer error="invalid_token", error_description="${err.description.replace(/"/g, "'")}"`;
  return { status: err.status, headers, body: { error: err.error, error_description: err.description } };
}
