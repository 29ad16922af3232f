/**
 * Builds the kernel's RequestContext for a gRPC call (DESIGN.md §3) and turns its effects into
 * response headers: metadata plays the part of HTTP headers (`authorization`,
 * `x-service-admin-secret`, `cookie`, `origin`, `user-agent`), the caller's IP comes from the
 * connection (see client-ip.ts), cookie effects leave as `set-cookie` initial metadata.
 */
import { RequestContext } from '../../core/context.js';
import { serializeSetCookie } from '../../core/cookies.js';
import type { Kernel } from '../../core/kernel.js';
import { clientIp, type Cidr } from './client-ip.js';
import type { OutgoingHeaders } from './h2/hpack/encoder.js';
import type { RequestHeaders } from './h2/stream.js';
import { addMetadata, requestMetadata } from './wire/metadata.js';

export function contextFromCall(
  kernel: Kernel,
  headers: RequestHeaders,
  remoteAddress: string,
  proxies: readonly Cidr[],
): RequestContext {
  const metadata = requestMetadata(headers);
  return new RequestContext({
    kernel,
    transport: 'grpc',
    ip: clientIp(remoteAddress, metadata['x-forwarded-for'], proxies),
    headers: metadata,
    ...(metadata['user-agent'] !== undefined ? { userAgent: metadata['user-agent'] } : {}),
  });
}

/** The first header block of a gRPC response. */
export function responseHead(): OutgoingHeaders {
  return { ':status': 200, 'content-type': 'application/grpc' };
}

/** The context's cookie and header effects added to a response header block. */
export function addEffects(head: OutgoingHeaders, ctx: RequestContext): OutgoingHeaders {
  for (const c of ctx.setCookies) addMetadata(head, 'set-cookie', serializeSetCookie(c));
  for (const [k, v] of Object.entries(ctx.responseHeaders)) addMetadata(head, k, v);
  return head;
}
