/**
 * Links in mail and the redirects after them. Links are built from `--url` only (request headers
 * never decide the host). A `redirect_uri` given to a mail-sending operation is
 * where the user's browser later lands with a session, so it must be a destination the built-in
 * client may redirect to (client-registry: `--allowed-origins`, or the service's own site), or
 * the mail would carry a sign-in to anyone's page (RFC 9700 §4.1.3).
 */
import type { RequestContext } from '../../core/context.js';
import { invalidArgument } from '../../core/errors.js';

/** `{--url}{path}?{query}` with the values encoded. */
export function serviceLink(ctx: RequestContext, path: string, query: Record<string, string | undefined>): string {
  const base = ctx.kernel.config.string('url', '').replace(/\/+$/, '');
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, v);
  const q = params.toString();
  return `${base}${path}${q ? `?${q}` : ''}`;
}

/** A link to an absolute target with extra query values (existing ones kept). */
export function withQuery(target: string, query: Record<string, string | undefined>): string {
  const url = new URL(target);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') url.searchParams.set(k, v);
  return url.toString();
}

/** Whether the built-in client may send the browser to `uri` (same rule as /authorize's). */
export async function redirectAllowed(ctx: RequestContext, uri: string): Promise<boolean> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const registry = ctx.kernel.hasService('client-registry') ? ctx.kernel.service('client-registry') : undefined;
  if (registry) {
    const client = await registry.findByClientId(ctx.kernel.config.string('client-id', ''));
    if (client) return registry.redirectAllowed(client, uri);
  }
  // Without a registry: only the service's own origin.
  try {
    return url.origin === new URL(ctx.kernel.config.string('url', '')).origin;
  } catch {
    return false;
  }
}

/** The redirect_uri of an operation's input: undefined when absent, `invalid_argument` when not allowed. */
export async function checkedRedirect(ctx: RequestContext, uri: string | undefined): Promise<string | undefined> {
  if (uri === undefined || uri === '') return undefined;
  if (!(await redirectAllowed(ctx, uri)))
    throw invalidArgument('invalid redirect_uri: not an address this service may redirect to');
  return uri;
}
