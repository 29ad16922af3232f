/**
 * Security headers on every response (DESIGN.md §5). Pages that need scripts or framing set
 * their own Content-Security-Policy and X-Frame-Options, which replace these defaults.
 */
import type { FastifyInstance } from 'fastify';

export function addSecurityHeaders(app: FastifyInstance, httpsOnly: boolean): void {
  // One precomputed object set before the handler: cheaper than a per-response onSend hook, and a
  // handler's own header of the same name simply overwrites it.
  const headers: Record<string, string> = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'x-frame-options': 'DENY',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
    'cross-origin-resource-policy': 'same-site',
    ...(httpsOnly ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(headers);
    done();
  });
}
