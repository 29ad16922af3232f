/**
 * Builds the kernel's RequestContext from a Fastify request and applies its effects to the reply.
 * REST, GraphQL, raw routes and MCP all go through these two functions.
 */
import type { CookieSerializeOptions } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RequestContext, type CookieOptions, type TransportName } from '../../core/context.js';
import type { Kernel } from '../../core/kernel.js';
import { credentialedOriginsOf } from './credentialed-origins.js';

/**
 * The request headers as the context wants them. Node already lowercases names and joins repeated
 * values with ", " for every request header except `set-cookie`, which requests do not carry; so
 * the common case reuses Node's object instead of copying it on every call.
 */
export function headersOf(request: FastifyRequest): Record<string, string | undefined> {
  const raw = request.headers;
  if (!Array.isArray(raw['set-cookie'])) return raw as Record<string, string | undefined>;
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(raw)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export function contextFromRequest(kernel: Kernel, request: FastifyRequest, transport: TransportName): RequestContext {
  return new RequestContext({
    kernel,
    transport,
    // request.ip honours X-Forwarded-For only from --trusted-proxies (Fastify trustProxy).
    ip: request.ip,
    headers: headersOf(request),
    // Parsed by @fastify/cookie (its onRequest hook in the kernel's scope, cookies.ts).
    ...(request.cookies ? { cookies: request.cookies } : {}),
    // A browser origin that may not use the caller's cookies gets none read and none set
    // (credentialed-origins.ts): no cross-site request forgery and no cross-site token reads.
    cookiesHonoured: credentialedOriginsOf(kernel).trusts(
      request.headers.origin,
      request.headers['sec-fetch-site'] as string | undefined,
    ),
  });
}

/** A cookie effect's attributes as @fastify/cookie takes them; a cleared cookie also expires in 1970 for old agents. */
function serializeOptions(o: CookieOptions): CookieSerializeOptions {
  const cleared = o.maxAge !== undefined && o.maxAge <= 0;
  return {
    path: o.path ?? '/',
    httpOnly: o.httpOnly ?? true,
    ...(o.domain ? { domain: o.domain } : {}),
    ...(o.secure ? { secure: true } : {}),
    ...(o.sameSite ? { sameSite: o.sameSite } : {}),
    ...(o.maxAge !== undefined ? { maxAge: Math.max(0, Math.floor(o.maxAge)) } : {}),
    ...(cleared ? { expires: new Date(0) } : {}),
  };
}

export function applyEffects(ctx: RequestContext, reply: FastifyReply): void {
  for (const c of ctx.setCookies) reply.setCookie(c.name, c.value, serializeOptions(c.options));
  for (const [k, v] of Object.entries(ctx.responseHeaders)) reply.header(k, v);
}
