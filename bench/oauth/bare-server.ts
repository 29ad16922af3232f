/**
 * Child process for the oauth bench: the least a client_credentials token endpoint can do with the
 * libraries Latchkey is built on, and nothing more. A bare Fastify route with a form body parser
 * (URLSearchParams), client_secret_basic against one client (the secret's SHA-256 digest compared in
 * constant time), the granted scope, and one RS256 JWT signed by jose's CompactSign with a 2048-bit
 * key imported once; the answer is the RFC 6749 §5.1 JSON with `Cache-Control: no-store`. No
 * hooks, no client registry, no rate limit, no metrics, no security headers. It is the ceiling of
 * the token row: what the HTTP stack plus one jose signature cost on this machine.
 */
import { createHash, generateKeyPairSync, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import Fastify from 'fastify';
import { CompactSign } from 'jose';
import { freePort } from '../../test/helpers/ports.js';
import { serveUntilStdinCloses } from '../child.js';
import type { BenchTarget } from './target.js';

const port = await freePort();
const issuer = `http://127.0.0.1:${port}`;
const clientId = 'bench-service';
const clientSecret = randomBytes(32).toString('base64url');
const secretDigest = createHash('sha256').update(clientSecret).digest();
const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const header = { alg: 'RS256', kid: 'bench-rs256', typ: 'at+jwt' };
const encoder = new TextEncoder();

const app = Fastify({ logger: false });
app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) =>
  done(null, Object.fromEntries(new URLSearchParams(body as string))),
);

function clientOf(authorization: string | undefined): string | null {
  if (!authorization?.startsWith('Basic ')) return null;
  const decoded = Buffer.from(authorization.slice(6), 'base64').toString();
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const id = decodeURIComponent(decoded.slice(0, colon));
  const digest = createHash('sha256')
    .update(decodeURIComponent(decoded.slice(colon + 1)))
    .digest();
  return id === clientId && timingSafeEqual(digest, secretDigest) ? id : null;
}

app.post('/oauth/token', async (req, reply) => {
  const client = clientOf(req.headers.authorization);
  if (!client) return reply.code(401).send({ error: 'invalid_client' });
  const params = req.body as Record<string, string>;
  if (params.grant_type !== 'client_credentials') return reply.code(400).send({ error: 'unsupported_grant_type' });
  const scope = params.scope === 'reports:read' ? 'reports:read' : '';
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    iss: issuer,
    sub: `service_account:${client}`,
    aud: client,
    client_id: client,
    scope,
    iat: now,
    exp: now + 3600,
    jti: randomUUID(),
  };
  const token = await new CompactSign(encoder.encode(JSON.stringify(claims)))
    .setProtectedHeader(header)
    .sign(privateKey);
  reply.header('cache-control', 'no-store');
  return { access_token: token, token_type: 'Bearer', expires_in: 3600, scope };
});
await app.listen({ host: '127.0.0.1', port });

const target: BenchTarget = { base: issuer, clientId, clientSecret, userAccessToken: '', scope: 'reports:read' };
serveUntilStdinCloses(target, () => app.close());
