/**
 * Builds the kernel's RequestContext from a Fastify request and applies its effects to the reply.
 * REST, GraphQL, raw routes and MCP all go through these two functions.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import '@fastify/cookie';
import { RequestContext, type TransportName } from '../../core/context.js';
import type { Kernel } from '../../core/kernel.js';

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
    cookies: (request as FastifyRequest & { cookies?: Record<string, string | undefined> }).cookies ?? {},
  });
}

export function applyEffects(ctx: RequestContext, reply: FastifyReply): void {
  for (const c of ctx.setCookies) {
    reply.setCookie(c.name, c.value, {
      path: c.options.path ?? '/',
      httpOnly: c.options.httpOnly ?? true,
      ...(c.options.secure !== undefined ? { secure: c.options.secure } : {}),
      ...(c.options.sameSite ? { sameSite: c.options.sameSite } : {}),
      ...(c.options.domain ? { domain: c.options.domain } : {}),
      ...(c.options.maxAge !== undefined
        ? c.options.maxAge <= 0
          ? { maxAge: 0, expires: new Date(0) }
          : { maxAge: c.options.maxAge }
        : {}),
    });
  }
  for (const [k, v] of Object.entries(ctx.responseHeaders)) reply.header(k, v);
}
