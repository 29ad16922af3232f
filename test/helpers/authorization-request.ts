/**
 * An application's start of the authorization-code flow with PKCE and a nonce (openid-client
 * against Latchkey's discovery document): the URL to send the browser to, and what the
 * application keeps to redeem the code.
 */
import * as oidc from 'openid-client';

export async function authorizationRequest(
  base: string,
  client: { id: string; secret: string },
  redirectUri: string,
  state: string,
) {
  const config = await oidc.discovery(new URL(base), client.id, client.secret, undefined, {
    execute: [oidc.allowInsecureRequests],
  });
  const verifier = oidc.randomPKCECodeVerifier();
  const nonce = oidc.randomNonce();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'openid email profile',
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    nonce,
    state,
  });
  return { config, verifier, nonce, url };
}
