/**
 * Builds the kernel's RequestContext for a gRPC call and turns its effects into
 * response metadata: metadata plays the part of HTTP headers (`authorization`,
 * `x-service-admin-secret`, `cookie`, `origin`, `user-agent`), the caller's IP comes from the
 * connection (see client-ip.ts), cookie effects leave as `set-cookie` initial metadata.
 */
import { Metadata, type ServerUnaryCall } from '@grpc/grpc-js';
import { RequestContext } from '../../core/context.js';
import { serializeSetCookie } from '../../core/cookies.js';
import type { Kernel } from '../../core/kernel.js';
import { clientIp, peerAddress, type Cidr } from './client-ip.js';

/**
 * Text metadata as a header record: repeated entries joined the HTTP way (`; ` for cookies);
 * binary `-bin` entries are not headers. grpc-js has already taken out the protocol's own
 * headers (content-type, te, grpc-timeout, grpc-encoding, grpc-accept-encoding).
 */
export function requestHeaders(metadata: Metadata): Record<string, string> {
  const out: Record<string, string> = {};
  const all = metadata.toJSON();
  for (const key in all) {
    if (key.endsWith('-bin') || key.charCodeAt(0) === 58 /* ':' */) continue;
    const values = all[key].filter((v): v is string => typeof v === 'string');
    if (values.length > 0) out[key] = values.join(key === 'cookie' ? '; ' : ', ');
  }
  return out;
}

export function contextFromCall(
  kernel: Kernel,
  call: ServerUnaryCall<unknown, unknown>,
  proxies: readonly Cidr[],
): RequestContext {
  const headers = requestHeaders(call.metadata);
  return new RequestContext({
    kernel,
    transport: 'grpc',
    ip: clientIp(peerAddress(call.getPeer()), headers['x-forwarded-for'], proxies),
    headers,
    ...(headers['user-agent'] !== undefined ? { userAgent: headers['user-agent'] } : {}),
  });
}

const NAME = /^[0-9a-z_.-]+$/;
const VALUE = /^[\x20-\x7e]*$/;
const FORBIDDEN = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'content-type',
  'content-length',
  'host',
]);

/**
 * Adds an entry when gRPC metadata can carry it (PROTOCOL-HTTP2.md, "Custom-Metadata": ASCII
 * names and printable values, none of the protocol's own); one it cannot carry is dropped
 * rather than failing the call. `set-cookie` may repeat; other names join with `, `.
 */
export function addMetadata(into: Metadata, name: string, value: string): void {
  const key = name.toLowerCase();
  if (!NAME.test(key) || key.startsWith('grpc-') || FORBIDDEN.has(key) || !VALUE.test(value)) return;
  const prior = into.get(key);
  if (prior.length === 0 || key === 'set-cookie') into.add(key, value);
  else into.set(key, `${String(prior[0])}, ${value}`);
}

/** The context's cookie and header effects as initial metadata; null when it has none. */
export function effectsMetadata(ctx: RequestContext): Metadata | null {
  const cookies = ctx.setCookies;
  const headers = Object.entries(ctx.responseHeaders);
  if (cookies.length === 0 && headers.length === 0) return null;
  const md = new Metadata();
  for (const c of cookies) addMetadata(md, 'set-cookie', serializeSetCookie(c));
  for (const [k, v] of headers) addMetadata(md, k, v);
  return md;
}
