/**
 * Validating an authorization request (RFC 6749 §4.1.1, §4.2.1; RFC 7636 §4.3; RFC 8707 §2;
 * OIDC Core §3.1.2.1). Until the client and redirect URI are trusted, errors are shown to the
 * user; after that they go back to the client (RFC 6749 §4.1.2.1).
 */
import type { Config } from '../../../core/config.js';
import type { OAuthClient } from '../../client-registry/index.js';
import { OAuthError } from '../errors.js';
import { splitScope, type Params } from '../params.js';
import { isChallenge } from '../pkce.js';
import { checkResource, grantScopes } from '../policy.js';
import { DEFAULT_SCOPES } from '../scopes.js';
import type { ResponseMode } from './respond.js';

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  responseType: 'code' | 'token';
  responseMode: ResponseMode;
  state: string;
  scopes: string[];
  codeChallenge?: string;
  nonce?: string;
  resource?: string;
  prompt: string[];
  maxAge?: number;
  screenHint?: string;
}

/** Thrown before the redirect URI is trusted: shown to the user, never redirected. */
export class UntrustedRequestError extends Error {
  constructor(
    readonly error: string,
    message: string,
  ) {
    super(message);
  }
}

const MODES: ResponseMode[] = ['query', 'fragment', 'form_post', 'web_message'];

export async function trustedTarget(
  params: Params,
  find: (id: string) => Promise<OAuthClient | null>,
  allowed: (c: OAuthClient, uri: string) => boolean,
): Promise<{ client: OAuthClient; redirectUri: string }> {
  if (!params.client_id) throw new UntrustedRequestError('invalid_request', 'client_id is required');
  const client = await find(params.client_id);
  if (!client) throw new UntrustedRequestError('invalid_client', 'unknown client_id');
  if (!params.redirect_uri) throw new UntrustedRequestError('invalid_request', 'redirect_uri is required');
  // Exact string match (RFC 9700 §2.1, §4.1.3): no prefix or pattern matching.
  if (!allowed(client, params.redirect_uri))
    throw new UntrustedRequestError('invalid_request', 'redirect_uri is not registered for this client');
  return { client, redirectUri: params.redirect_uri };
}

/** The response mode the answer will use, even for an error (implicit never goes in a query). */
export function responseModeOf(params: Params, config: Config): ResponseMode {
  const type = params.response_type ?? config.string('default-authorize-response-type', 'token');
  const asked = (params.response_mode ?? config.string('default-authorize-response-mode', 'query')) as ResponseMode;
  const mode = MODES.includes(asked) ? asked : 'query';
  // Tokens in a query string leak through logs and Referer (OAuth 2.0 Multiple Response Types §3.0).
  return type !== 'code' && mode === 'query' ? 'fragment' : mode;
}

export function parseAuthorizationRequest(
  params: Params,
  config: Config,
  target: { client: OAuthClient; redirectUri: string },
): AuthorizationRequest {
  const responseMode = responseModeOf(params, config);
  if (params.response_mode && !MODES.includes(params.response_mode as ResponseMode)) {
    throw new OAuthError('invalid_request', `response_mode ${params.response_mode} is not supported`);
  }
  const responseType = params.response_type ?? config.string('default-authorize-response-type', 'token');
  if (responseType !== 'code' && responseType !== 'token') {
    throw new OAuthError('unsupported_response_type', `response_type ${responseType} is not supported`);
  }
  if (!params.state) throw new OAuthError('invalid_request', 'state is required');
  if (!target.client.isActive) throw new OAuthError('unauthorized_client', 'client is inactive');
  // A self-registered client is public: the code flow with PKCE only.
  if (responseType === 'token' && target.client.selfRegistered)
    throw new OAuthError('unauthorized_client', 'a self-registered client must use response_type=code');
  const scopes = grantScopes(target.client, splitScope(params.scope), DEFAULT_SCOPES);
  let codeChallenge: string | undefined;
  if (responseType === 'code') {
    codeChallenge = params.code_challenge;
    if (!codeChallenge) throw new OAuthError('invalid_request', 'code_challenge is required (PKCE S256)');
    // Older SDKs omit the method; S256 is assumed. `plain` is refused (RFC 9700 §2.1.1).
    const method = params.code_challenge_method ?? 'S256';
    if (method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
    if (!isChallenge(codeChallenge))
      throw new OAuthError('invalid_request', 'code_challenge must be a base64url SHA-256 digest');
  }
  const prompt = splitScope(params.prompt);
  if (prompt.includes('none') && prompt.length > 1)
    throw new OAuthError('invalid_request', 'prompt=none cannot be combined with other values');
  let maxAge: number | undefined;
  if (params.max_age !== undefined) {
    maxAge = Number(params.max_age);
    if (!Number.isInteger(maxAge) || maxAge < 0)
      throw new OAuthError('invalid_request', 'max_age must be a non-negative integer');
  }
  return {
    client: target.client,
    redirectUri: target.redirectUri,
    responseType,
    responseMode,
    state: params.state,
    scopes,
    ...(codeChallenge ? { codeChallenge } : {}),
    ...(params.nonce ? { nonce: params.nonce } : {}),
    ...(params.resource ? { resource: checkResource(params.resource) } : {}),
    prompt,
    ...(maxAge !== undefined ? { maxAge } : {}),
    ...(params.screen_hint ? { screenHint: params.screen_hint } : {}),
  };
}
