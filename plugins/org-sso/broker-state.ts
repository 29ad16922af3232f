/**
 * The broker's login state: kept in the memory store under the OAuth `state` (single use, ten
 * minutes) and bound to the browser that started the login by a cookie scoped to the broker's
 * paths, so a callback carried to another browser (login CSRF, RFC 6749 §10.12) finds nothing.
 */
import type { RequestContext } from '../../core/context.js';
import type { LoginRequest } from '../social/index.js';

export const STATE_COOKIE = 'org_sso_state';
const TTL_MS = 10 * 60 * 1000;
const key = (state: string) => `org-sso:state:${state}`;

export interface PendingBrokerLogin {
  connectionId: string;
  slug: string;
  codeVerifier: string;
  nonce: string;
  request: LoginRequest;
}

const cookieOptions = (ctx: RequestContext) => ({
  httpOnly: true,
  secure: ctx.kernel.config.string('url', '').startsWith('https:'),
  sameSite: 'lax' as const,
  path: '/oauth/oidc/',
});

export async function savePending(ctx: RequestContext, state: string, pending: PendingBrokerLogin): Promise<void> {
  await ctx.kernel.memory.set(key(state), JSON.stringify(pending), TTL_MS);
  ctx.setCookie(STATE_COOKIE, state, { ...cookieOptions(ctx), maxAge: TTL_MS / 1000 });
}

/** The pending login of this state, consumed; null when the cookie does not match or it was used or expired. */
export async function takePending(ctx: RequestContext, state: string | undefined): Promise<PendingBrokerLogin | null> {
  if (!state || state.length > 512 || ctx.cookie(STATE_COOKIE) !== state) return null;
  ctx.clearCookie(STATE_COOKIE, cookieOptions(ctx));
  const text = await ctx.kernel.memory.consume(key(state));
  return text ? (JSON.parse(text) as PendingBrokerLogin) : null;
}
