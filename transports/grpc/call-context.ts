/**
 * Builds the kernel's RequestContext for a gRPC call (DESIGN.md §3) and applies its effects:
 * metadata plays the part of HTTP headers (`authorization`, `x-service-admin-secret`, `cookie`,
 * `origin`, `user-agent`), the caller's IP comes from the connection (see client-ip.ts), cookie
 * effects leave as `set-cookie` initial metadata.
 */
import { Metadata, type ServerUnaryCall } from '@grpc/grpc-js';
import { RequestContext } from '../../core/context.js';
import type { Kernel } from '../../core/kernel.js';
import { clientIp, peerAddress, type Cidr } from './client-ip.js';
import { serializeSetCookie } from '../../core/cookies.js';

/** Text metadata as a header record; repeated keys joined the HTTP way (`; ` for cookies). */
export function headersFromMetadata(metadata: Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, values] of Object.entries(metadata.toJSON())) {
    if (key.endsWith('-bin')) continue;
    const texts = values.filter((v): v is string => typeof v === 'string');
    if (texts.length > 0) out[key] = texts.join(key === 'cookie' ? '; ' : ', ');
  }
  return out;
}

export function contextFromCall(kernel: Kernel, call: ServerUnaryCall<unknown, unknown>, proxies: readonly Cidr[]): RequestContext {
  const headers = headersFromMetadata(call.metadata);
  return new RequestContext({
    kernel,
    transport: 'grpc',
    ip: clientIp(peerAddress(call.getPeer()), headers['x-forwarded-for'], proxies),
    headers,
    ...(headers['user-agent'] !== undefined ? { userAgent: headers['user-agent'] } : {}),
  });
}

function addSafely(md: Metadata, key: string, value: string): void {
  try {
    md.add(key.toLowerCase(), value);
  } catch {
    // A header name or value gRPC cannot carry (non-ASCII) is dropped rather than failing the call.
  }
}

/** The context's cookie and header effects as response metadata. */
export function effectsMetadata(ctx: RequestContext): Metadata {
  const md = new Metadata();
  for (const c of ctx.setCookies) addSafely(md, 'set-cookie', serializeSetCookie(c));
  for (const [k, v] of Object.entries(ctx.responseHeaders)) addSafely(md, k, v);
  return md;
}

/** Headers an error asks for (for example `www-authenticate`), sent as trailing metadata. */
export function headersMetadata(headers: Readonly<Record<string, string>> | undefined): Metadata {
  const md = new Metadata();
  for (const [k, v] of Object.entries(headers ?? {})) addSafely(md, k, v);
  return md;
}
