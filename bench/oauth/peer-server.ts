/**
 * Child process for the oauth bench: the peer, oidc-provider 9 (node-oidc-provider), configured
 * like the Latchkey side: one confidential client with client_credentials and
 * client_secret_basic, an RS256 signing key, JWT access tokens for client_credentials (through
 * resource indicators, the only way oidc-provider issues JWT access tokens), its default
 * in-memory adapter (Latchkey runs with its in-process memory store). The userinfo token is an
 * opaque access token minted through the provider's own Grant and AccessToken models for one
 * account: oidc-provider's /userinfo refuses JWT access tokens with an audience, so opaque is what
 * any of its relying parties would present. Prints one JSON line, serves until stdin closes.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import Provider from 'oidc-provider';
import { freePort } from '../../test/helpers/ports.js';
import { serveUntilStdinCloses } from '../child.js';
import type { BenchTarget } from './target.js';

const port = await freePort();
const issuer = `http://127.0.0.1:${port}`;
const clientId = 'bench-service';
const clientSecret = randomBytes(32).toString('base64url');
const resource = 'urn:latchkey-bench:api';
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'bench-rs256', alg: 'RS256', use: 'sig' };

const account = {
  accountId: 'bench-user',
  async claims() {
    return {
      sub: 'bench-user',
      email: 'bench@example.com',
      email_verified: true,
      given_name: 'Bench',
      family_name: 'User',
    };
  },
};

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials', 'authorization_code'],
      response_types: ['code'],
      redirect_uris: ['http://localhost:5555/callback'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'openid email profile reports:read',
    },
  ],
  jwks: { keys: [signingJwk] },
  // The same paths as Latchkey's (its defaults are /token and /me).
  routes: { token: '/oauth/token', userinfo: '/userinfo' },
  cookies: { keys: [randomBytes(32).toString('base64url')] },
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['given_name', 'family_name'] },
  scopes: ['openid', 'email', 'profile', 'reports:read'],
  ttl: { AccessToken: 3600, ClientCredentials: 3600, Grant: 3600 },
  findAccount: async (_ctx: unknown, id: string) => (id === account.accountId ? account : undefined),
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: async () => resource,
      useGrantedResource: async () => true,
      getResourceServerInfo: async () => ({
        scope: 'reports:read',
        audience: resource,
        accessTokenFormat: 'jwt',
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
const server = provider.listen(port, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', () => resolve()));

const client = await provider.Client.find(clientId);
const grant = new provider.Grant({ accountId: account.accountId, clientId });
grant.addOIDCScope('openid email profile');
const grantId = await grant.save();
const userToken = new provider.AccessToken({
  accountId: account.accountId,
  client,
  grantId,
  scope: 'openid email profile',
  gty: 'authorization_code',
});
const userAccessToken = await userToken.save();

const target: BenchTarget = { base: issuer, clientId, clientSecret, userAccessToken, scope: 'reports:read' };
serveUntilStdinCloses(target, () => new Promise((resolve) => server.close(resolve)));
