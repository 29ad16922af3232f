/**
 * The social service's public types: what a provider plugin (providers/kit.ts) hands over once
 * the provider has proven who the user is, and the validated /oauth_login request it started from.
 */
import type { RequestContext } from '../../core/context.js';
import type { RawResponse } from '../../core/plugin.js';
import type { UserRecord } from '../users/index.js';

/** The user as the provider attests them, after the provider's response was validated. */
export interface SocialProfile {
  /** The provider's stable, non-reassignable user id (`sub`, GitHub's numeric id). */
  subject: string;
  email?: string;
  /** True only when the provider attests that the user controls `email`. */
  emailVerified: boolean;
  givenName?: string;
  familyName?: string;
  nickname?: string;
  preferredUsername?: string;
  picture?: string;
}

/** A validated `GET /oauth_login/{provider}` request. */
export interface LoginRequest {
  /** The target, already allowed by the same rule as /authorize's built-in client. */
  redirectUri: string;
  /** The application's `state`, returned unchanged. */
  state: string;
  /** The roles asked for; empty: `--default-roles` for a new user, the user's roles otherwise. */
  roles: string[];
  scopes: string[];
  /** Where tokens go on the redirect: the fragment (default) or the query. */
  responseMode: 'fragment' | 'query';
}

export interface SocialProviderInfo {
  /** The path segment of /oauth_login/{name} and the `signup_methods` entry. */
  name: string;
  /** The button text's provider name ("GitHub"). */
  label: string;
}

export interface CompleteOptions {
  /**
   * Runs once the user is found, linked or created and before the sign-in gates: organization SSO
   * joins the user to the connection's organization here. A ServiceError refusal goes back to the
   * application as `access_denied`.
   */
  beforeSignIn?: (user: UserRecord) => Promise<void>;
}

export interface SocialService {
  /** A provider plugin announces itself at setup (the hosted login page lists them). */
  register(provider: SocialProviderInfo): void;
  providers(): SocialProviderInfo[];
  /**
   * Validates /oauth_login's query. Throws a SocialLoginFailure: with a page when the redirect
   * target cannot be trusted, else with a redirect that carries the error.
   */
  parseLoginRequest(ctx: RequestContext, query: Record<string, string | undefined>): Promise<LoginRequest>;
  /**
   * parseLoginRequest for a login route: the request, or the refusal's response to answer as it
   * is (a SocialLoginFailure's); any other error is thrown.
   */
  loginRequestOf(
    ctx: RequestContext,
    query: Record<string, string | undefined>,
  ): Promise<{ request: LoginRequest } | { refusal: RawResponse }>;
  /** Finds, links or creates the user, ends through the sign-in service, and answers the redirect. */
  complete(
    ctx: RequestContext,
    provider: string,
    profile: SocialProfile,
    request: LoginRequest,
    options?: CompleteOptions,
  ): Promise<RawResponse>;
  /** The redirect to the validated target with an OAuth-style error (RFC 6749 §4.1.2.1). */
  fail(request: LoginRequest, error: string, description: string): RawResponse;
  /** A page for errors that cannot go back to a trusted target. */
  errorPage(status: number, error: string, description: string): RawResponse;
}

declare module '../../core/services.js' {
  interface Services {
    social: SocialService;
  }
}
