/**
 * Security headers on every response (DESIGN.md §5). Pages that need scripts or framing set
 * their own Content-Security-Policy, which this hook leaves alone.
 */
import type { FastifyInstance } from 'fastify';

export function addSecurityHeaders(app: FastifyInstance, httpsOnly: boolean): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    if (!reply.hasHeader('x-frame-options')) reply.header('x-frame-options', 'DENY');
    if (!reply.hasHeader('content-security-policy')) {
      reply.header('content-security-policy', "default-src 'none'; frame-ancestors 'none'");
    }
    reply.header('cross-origin-resource-policy', 'same-site');
    if (httpsOnly) reply.header('strict-transport-security', 'max-age=31536000; includeSubDomains');
    return payload;
  });
}
