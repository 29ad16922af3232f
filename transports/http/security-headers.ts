/**
 * The headers every response carries, set by @fastify/helmet in the kernel's scope:
 * `X-Content-Type-Options: nosniff`, `Referrer-Policy: no-referrer`, `X-Frame-Options: DENY`,
 * `Content-Security-Policy: default-src 'none'; frame-ancestors 'none'` (the API serves no
 * documents; pages that need scripts or framing set their own policy, which replaces this one),
 * `Cross-Origin-Resource-Policy: same-site`, HSTS when --url is https, and helmet's other defaults
 * but the opener policy (the OAuth and social sign-in flows run in popups that report back to
 * their opener).
 */
import helmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../core/config.js';

/** HSTS only where the server is reached over TLS (`--url`, the only source of the host). */
export const httpsOnlyOf = (config: Config): boolean =>
  new URL(config.string('url') ?? 'http://localhost').protocol === 'https:';

export async function registerSecurityHeaders(app: FastifyInstance, httpsOnly: boolean): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-site' },
    crossOriginOpenerPolicy: false,
    strictTransportSecurity: httpsOnly ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  });
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
