/**
 * The relying-party configuration of one provider, made with openid-client: by OpenID Connect
 * discovery from the issuer (its metadata, JWKS and `iss` then check every ID token's signature,
 * issuer, audience and nonce), or from the
 * configured endpoints for plain OAuth 2.0 providers. openid-client refuses plain http; its
 * documented `allowInsecureRequests` is applied only when the issuer or token endpoint is an http
 * URL on loopback (kit-flags.ts refuses http anywhere else at boot).
 */
import * as oidc from 'openid-client';
import type { Config } from '../core/config.js';
import { ProviderError } from './errors.js';
import { clientIdFlag, clientSecretFlag, endpointsOf, issuerOf, loopbackHttp } from './kit-flags.js';
import type { ProviderDescriptor } from './kit-types.js';

const TIMEOUT_S = 10;
/** A computed client secret (Apple's JWT, valid an hour) is made again after this long. */
const COMPUTED_SECRET_MS = 50 * 60 * 1000;

export interface ProviderClient {
  config: oidc.Configuration;
  /** True when the provider is an OpenID Connect issuer: an ID token is expected and verified. */
  oidc: boolean;
}

function clientAuth(d: ProviderDescriptor, secret: string): oidc.ClientAuth {
  return d.tokenAuth === 'basic' ? oidc.ClientSecretBasic(secret) : oidc.ClientSecretPost(secret);
}

async function build(d: ProviderDescriptor, config: Config): Promise<ProviderClient> {
  const clientId = config.string(clientIdFlag(d.name)) ?? '';
  const issuer = issuerOf(d, config);
  const secret = d.clientSecret
    ? await d.clientSecret(config, issuer ?? '')
    : (config.string(clientSecretFlag(d.name)) ?? '');
  if (issuer !== undefined) {
    const url = new URL(issuer);
    const configuration = await oidc.discovery(url, clientId, undefined, clientAuth(d, secret), {
      timeout: TIMEOUT_S,
      // openid-client trusts an ID token from the token endpoint on TLS alone unless told
      // otherwise (OIDC Core §3.1.3.7 allows it); its signature is checked against the issuer's
      // JWKS here as well, so a token endpoint answer cannot stand in for the issuer's keys.
      execute: [oidc.enableNonRepudiationChecks, ...(loopbackHttp(url) ? [oidc.allowInsecureRequests] : [])],
    });
    return { config: configuration, oidc: true };
  }
  const endpoints = endpointsOf(d, config);
  const token = new URL(endpoints.token);
  const configuration = new oidc.Configuration(
    {
      // A plain OAuth 2.0 provider has no issuer identifier; its authorization server's origin
      // stands in (no ID token is expected, so nothing is compared with it).
      issuer: new URL(endpoints.authorization).origin,
      authorization_endpoint: endpoints.authorization,
      token_endpoint: endpoints.token,
    },
    clientId,
    undefined,
    clientAuth(d, secret),
  );
  configuration.timeout = TIMEOUT_S;
  if (loopbackHttp(token)) oidc.allowInsecureRequests(configuration);
  return { config: configuration, oidc: false };
}

/**
 * The client made once per provider and kept; a failed discovery is not kept, so the next login
 * tries again once the provider is back.
 */
export function providerClients(d: ProviderDescriptor, config: Config): () => Promise<ProviderClient> {
  let pending: Promise<ProviderClient> | undefined;
  let madeAt = 0;
  return () => {
    if (pending && d.clientSecret && Date.now() - madeAt > COMPUTED_SECRET_MS) pending = undefined;
    if (!pending) {
      madeAt = Date.now();
      pending = build(d, config).catch((err: unknown) => {
        pending = undefined;
        if (err instanceof ProviderError) throw err;
        throw new ProviderError(
          `discovery_failed:${(err as { code?: string }).code ?? 'error'}`,
          'the identity provider is not available',
        );
      });
    }
    return pending;
  };
}
