/**
 * The headers every response carries (DESIGN.md §5): the security headers and `vary: Origin`
 * (the defaults), and the CORS answer for the caller's Origin (cors.ts), set in one step of the
 * onRequest hook (request-steps.ts). One precomputed object and a callback hook: this runs on
 * every request. Pages that
 * need scripts or framing set their own Content-Security-Policy and X-Frame-Options, which
 * replace these defaults.
 */
import type { FastifyReply } from 'fastify';
import type { Config } from '../../core/config.js';
import type { CorsPolicy } from './cors.js';
import type { RequestStep } from './request-steps.js';

/** HSTS only where the server is reached over TLS (`--url`, the only source of the host: DESIGN.md §5). */
export const httpsOnlyOf = (config: Config): boolean =>
  new URL(config.string('url') ?? 'http://localhost').protocol === 'https:';

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

/** The security headers and `vary: Origin`: what every response carries unless it sets its own. */
export const defaultHeaders = (httpsOnly: boolean): Record<string, string> => ({
  ...securityHeaders(httpsOnly),
  vary: 'Origin',
});

export function responseHeadersStep(httpsOnly: boolean, cors: CorsPolicy): RequestStep {
  const always = defaultHeaders(httpsOnly);
  return (request, reply) => {
    reply.headers(always);
    const allowed = cors.allowOrigin(request.headers.origin);
    if (allowed !== null) {
      reply.header('access-control-allow-origin', allowed.origin);
      if (allowed.credentials) reply.header('access-control-allow-credentials', 'true');
    }
    return true;
  };
}

/** Takes the default header `name` (lower-case) away from this reply. */
export function removeDefaultHeader(reply: FastifyReply, name: string): void {
  reply.removeHeader(name);
}

/** `Cache-Control: no-store` on this reply (RFC 9111 §5.2.2.5). */
export function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}
