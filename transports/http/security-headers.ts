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
 * (docs/performance.md).
 *
 * With these options every header helmet sets is the same on every response (no per-request
 * directive, no nonce), so helmet's middleware runs once, at boot, on a Node `ServerResponse`,
 * and the headers it set there (`getHeaders()`) go on each reply through Fastify's `reply.headers`.
 * Why not on the raw response per request: one `setHeader` per header made Node keep its own
 * header table beside Fastify's, every header name lowercased and every header of the answer
 * stored twice, a few percent of a cold bearer request's CPU (docs/performance.md); Fastify's
 * headers go to Node in one `writeHead`, which checks each name and value once.
 */
import { IncomingMessage, ServerResponse, type OutgoingHttpHeaders } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import type { Config } from '../../core/config.js';
import type { RequestStep } from './request-steps.js';

/** HSTS only where the server is reached over TLS (`--url`: request headers never decide the host). */
export const httpsOnlyOf = (config: Config): boolean =>
  new URL(config.string('url') ?? 'http://localhost').protocol === 'https:';

/** helmet's options for every answer of the scope. */
export function helmetOptions(httpsOnly: boolean): HelmetOptions {
  return {
    contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] } },
    xFrameOptions: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: { policy: 'same-site' },
    crossOriginOpenerPolicy: false,
    strictTransportSecurity: httpsOnly ? { maxAge: 31_536_000, includeSubDomains: true } : false,
  };
}

/** The headers helmet sets with `options`, read off a response it ran on (names lower-case). */
export function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const response = new ServerResponse(new IncomingMessage(new Socket()));
  let failure: unknown;
  helmet(options)(response.req, response, (err?: unknown) => {
    failure = err;
  });
  if (failure !== undefined) throw failure instanceof Error ? failure : new Error(String(failure));
  const headers: Record<string, string> = {};
  const set: OutgoingHttpHeaders = response.getHeaders();
  for (const [name, value] of Object.entries(set)) if (value !== undefined) headers[name] = String(value);
  return headers;
}

/** The step that puts the security headers on every reply of the scope (helmet's, read once). */
export function securityHeadersStep(httpsOnly: boolean): RequestStep {
  const headers = helmetHeaders(helmetOptions(httpsOnly));
  return (_request, reply) => {
    reply.headers(headers);
    return true;
  };
}

/** `Cache-Control: no-store` on this reply (RFC 9111 §5.2.2.5). */
export function noStore(reply: FastifyReply): void {
  reply.header('cache-control', 'no-store');
}
