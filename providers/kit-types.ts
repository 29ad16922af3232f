/** What a provider file declares for providers/kit.ts. */
import type * as oidc from 'openid-client';
import type { Config, FlagDeclaration } from '../core/config.js';
import type { SocialProfile } from '../plugins/social/index.js';

export type { SocialProfile };

/** A JSON document fetched from one of the provider's APIs (fetch-json.ts). */
export type JsonObject = Record<string, unknown>;

/** What a profile mapping gets once the code has been exchanged and any ID token verified. */
export interface ProfileInput {
  /** The token endpoint's answer (never logged, never shown). */
  tokens: oidc.TokenEndpointResponse;
  /** The verified ID token's claims (OIDC providers). */
  claims?: oidc.IDToken;
  /** The UserInfo endpoint's answer, when the provider has one (OIDC), checked against `sub`. */
  userinfo?: JsonObject;
  /** GETs one of the descriptor's API endpoints with the access token (fetch-json.ts). */
  api(endpoint: string, init?: { query?: Record<string, string>; headers?: Record<string, string> }): Promise<unknown>;
  /** The callback's query parameters (Apple sends the user's name as `user` on first authorization). */
  callback: Record<string, string>;
  config: Config;
}

export interface ProviderDescriptor {
  /** kebab-case; the path segment of /oauth_login/{name}, the flag prefix, the Meta field's name. */
  name: string;
  /** What `--help` calls the provider when its label depends on the configuration. */
  title?: string;
  /** The name on the hosted page's button (a function sees the configuration: the generic provider's). */
  label: string | ((config: Config) => string);
  /**
   * OIDC: the issuer (discovery, JWKS, ID token `iss`), overridable with `--<name>-issuer-url`.
   * A function sees the configuration (Microsoft's tenant).
   */
  issuer?: string | ((config: Config) => string);
  /**
   * Plain OAuth 2.0: the endpoints by key. `authorization` and `token` are required; the rest are
   * the provider's APIs for `api(key)`. Each is overridable with `--<name>-<key>-url`.
   */
  endpoints?: Record<string, string>;
  /** Scopes asked for when `--<name>-scopes` is not set. */
  scopes: string[];
  /** How scopes are joined in the authorization request (some providers want commas). */
  scopeSeparator?: string;
  /** RFC 7636 PKCE (S256) with the provider. */
  pkce: boolean;
  /** Token endpoint client authentication: in the body (default) or HTTP Basic (RFC 6749 §2.3.1). */
  tokenAuth?: 'post' | 'basic';
  /** The provider answers the callback with a form POST (OAuth 2.0 Form Post Response Mode). */
  formPost?: boolean;
  /** Whether to read the UserInfo endpoint after an OIDC code exchange (default true). */
  userinfo?: boolean;
  /** Extra authorization request parameters. */
  authorizationParams?: (config: Config) => Record<string, string>;
  /** Flags beyond the usual three and the endpoint overrides (Microsoft's tenant, Apple's key id). */
  flags?: FlagDeclaration[];
  /** Rejects configurations the provider cannot run with (checked at boot when it is enabled). */
  validateConfig?: (config: Config) => string | undefined;
  /** Computes the client secret per exchange (Apple's ES256 JWT); default `--<name>-client-secret`. */
  clientSecret?: (config: Config, issuer: string) => Promise<string>;
  /** Extra checks of the verified ID token (Microsoft's tenant); throw a ProviderError to refuse. */
  checkClaims?: (claims: oidc.IDToken, config: Config) => void;
  /** Maps the provider's answer to the profile; throw a ProviderError when it is unusable. */
  profile(input: ProfileInput): Promise<SocialProfile> | SocialProfile;
}
