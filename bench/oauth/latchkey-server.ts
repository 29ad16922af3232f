/**
 * Child process for the oauth bench: the Latchkey server as the `latchkey` binary builds it (the
 * default plugins, SQLite, the in-process memory store, RS256), one registered confidential client
 * and one signed-in user. Prints one JSON line with what the load generator needs, then serves
 * until stdin closes (so `--cpu-prof` can write its profile on a clean exit).
 */
import { generateKeyPairSync } from 'node:crypto';
import { startTestServer } from '../../test/helpers/server.js';
import { serveUntilStdinCloses } from '../child.js';
import type { BenchTarget } from './target.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const server = await startTestServer({
  flags: {
    'rate-limit-per-minute': 0,
    'jwt-type': 'RS256',
    'jwt-secret': undefined,
    'jwt-private-key': privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    'jwt-public-key': publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    'encryption-key': 'bench-encryption-key-0123456789abcdef',
  },
});
const kernel = server.kernel;
const { client, secret } = await kernel.service('client-registry').create({
  name: 'bench service',
  allowed_scopes: ['openid', 'email', 'profile', 'reports:read'],
  redirect_uris: ['http://localhost:5555/callback'],
});
// The user access token is the one the authorization_code grant issues after a browser sign-in:
// a session of its own for the client, then tokens.issue with the granted scopes (see
// plugins/oauth-server/token/authorization-code.ts); issued here directly to keep the bench short.
const user = await kernel.service('users').create({
  email: 'bench@example.com',
  password: 'Bench-pass-1',
  signup_method: 'basic_auth',
  roles: ['user'],
  given_name: 'Bench',
  family_name: 'User',
  email_verified: true,
});
const scopes = ['openid', 'email', 'profile'];
const session = await kernel.service('sessions').create({
  userId: user.id,
  roles: ['user'],
  scopes,
  amr: ['pwd'],
  authTime: Math.floor(Date.now() / 1000),
  clientId: client.clientId,
});
const issued = await kernel
  .service('tokens')
  .issue({ idTokenClaimsByScope: true, user, session, scopes, roles: ['user'], clientId: client.clientId });

const target: BenchTarget = {
  base: server.url.replace('localhost', '127.0.0.1'),
  clientId: client.clientId,
  clientSecret: secret,
  userAccessToken: issued.access_token,
  scope: 'reports:read',
};
serveUntilStdinCloses(target, () => server.close());
