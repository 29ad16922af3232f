/**
 * The headers every response carries (the security baseline every plugin inherits), set by
 * helmet in the kernel's scope: `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`,
 * `X-Frame-Options: DENY`, `Content-Security-Policy: default-src 'none';frame-ancestors 'none'` (the API serves no
 * documents; pages that need scripts or framing set their own policy, which replaces this one),
 * `Cross-Origin-Resource-Policy: same-site`, HSTS when --url is https, and helmet's other defaults
 * but the opener policy (the OAuth and social sign-in flows run in popups that report back to
 * their opener).
 *
 * Why helmet's own middleware and not @fastify/helmet: the plugin calls `helmet(options)` anew on
 * every request (its onRequest hook builds the middleware, and every header's value, per request,
 * beside a second, async hook); in `npm run bench kernel` that was ~40 µs of server CPU per
 * request, REST `GET /v1/meta` at 50% of bare Fastify against 94% without it
 * (docs/performance.md). The middleware is built once here, with the same options, and run as a
 * step of the scope's onRequest hook.
 */
import type { FastifyReply } from 'fastify';
import helmet from 'helmet';
import type { Config } from '../../core/config.js';
import type { RequestStep } from './request-steps.js';

/** HSTS only where the server is reached over TLS (`--url`: request headers never decide the host). */
export const httpsOnlyOf = (config: Config): boolean =>
  new URL(config.string('url') ?? 'http://localhost').protocol === 'https:';

/** The step that sets the security headers on every response of the scope (helmet, built once). */
export function securityHeadersStep(httpsOnly: boolean): RequestStep {
  const setHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-site' },
    crossOriginOpenerPolicy: false,
    strictTransportSecurity: httpsOnly ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
  // helmet's middleware only sets headers and calls `next` before it returns.
  const next = (): void => {};
  return (request, reply) => {
    setHeaders(request.raw, reply.raw, next);
    return true;
  };
}

/** Takes a default header `name` (lower-case) away from this reply (helmet sets them on the raw response). */
export function removeDefaultHeader(reply: FastifyReply, name: string): void {
  reply.removeHeader(name);
  reply.raw.removeHeader(name);
}

/** `Cache-Control: no-store` on this reply (RFC 9111 §5.2.2.5). */
export function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}
