/**
 * The headers every response carries (DESIGN.md §5), set in one onRequest hook: the security
 * headers, and the CORS answer for the caller's Origin (cors.ts). One precomputed object and a
 * callback hook: this runs on every request. Pages that need scripts or framing set their own
 * Content-Security-Policy and X-Frame-Options, which replace these defaults.
 */
import type { FastifyInstance } from 'fastify';
import type { CorsPolicy } from './cors.js';

export function securityHeaders(httpsOnly: boolean): Record<string, string> {
  return {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'cross-origin-resource-policy': 'same-site',
    ...(httpsOnly ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
}

export function addResponseHeaders(app: FastifyInstance, httpsOnly: boolean, cors: CorsPolicy): void {
  const always = { ...securityHeaders(httpsOnly), vary: 'Origin' };
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(always);
    const allowed = cors.allowOrigin(request.headers.origin);
    if (allowed !== null) {
      reply.header('access-control-allow-origin', allowed.origin);
      if (allowed.credentials) reply.header('access-control-allow-credentials', 'true');
    }
    done();
  });
}
