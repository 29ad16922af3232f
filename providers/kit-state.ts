/**
 * The login's state between /oauth_login and /oauth_callback (RFC 6749 §10.12, RFC 9700 §2.1):
 * a random `state` sent to the provider, the PKCE verifier and nonce kept server-side in the
 * memory store for ten minutes, and the same `state` in a short-lived HttpOnly cookie scoped to
 * the callback path, so the callback is accepted only in the browser that started the login.
 * The record is consumed on first use: a replayed callback finds nothing.
 */
import { timingSafeEqual } from 'node:crypto';
import type { RequestContext } from '../core/context.js';
import type { LoginRequest } from '../plugins/social/index.js';

export const STATE_TTL_MS = 10 * 60 * 1000;
export const STATE_COOKIE = 'latchkey_social_state';

export interface PendingLogin {
  provider: string;
  request: LoginRequest;
  codeVerifier?: string;
  nonce?: string;
}

const keyOf = (state: string): string => `social:state:${state}`;

function cookieOptions(ctx: RequestContext, provider: string, formPost: boolean) {
  const url = new URL(ctx.kernel.config.string('url') ?? 'http://localhost');
  const https = url.protocol === 'https:';
  return {
    // Under `--url`'s path too: an embedded service (`https://host/auth`) serves /auth/oauth_callback.
    path: `${url.pathname.replace(/\/+$/, '')}/oauth_callback/${provider}`,
    maxAge: STATE_TTL_MS / 1000,
    httpOnly: true,
    secure: https,
    // Lax reaches the callback's top-level GET; a form_post callback is a cross-site POST, which
    // only a SameSite=None cookie reaches (and browsers take None only with Secure, on https).
    sameSite: formPost && https ? ('none' as const) : ('lax' as const),
  };
}

export async function savePending(
  ctx: RequestContext,
  state: string,
  pending: PendingLogin,
  formPost: boolean,
): Promise<void> {
  await ctx.kernel.memory.set(keyOf(state), JSON.stringify(pending), STATE_TTL_MS);
  ctx.setCookie(STATE_COOKIE, state, cookieOptions(ctx, pending.provider, formPost));
}

export type PendingResult = { ok: true; pending: PendingLogin } | { ok: false; description: string };

const same = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** The login this callback belongs to, consumed; or why it cannot be trusted. */
export async function takePending(
  ctx: RequestContext,
  provider: string,
  state: string | undefined,
  formPost: boolean,
): Promise<PendingResult> {
  const cookie = ctx.cookie(STATE_COOKIE);
  if (!state) return { ok: false, description: 'the callback has no state' };
  if (!cookie || !same(cookie, state))
    return { ok: false, description: 'the sign-in was started in another browser or has expired' };
  ctx.clearCookie(STATE_COOKIE, cookieOptions(ctx, provider, formPost));
  const raw = await ctx.kernel.memory.consume(keyOf(state));
  if (!raw) return { ok: false, description: 'the sign-in has expired or was already completed' };
  const pending = JSON.parse(raw) as PendingLogin;
  if (pending.provider !== provider) return { ok: false, description: 'the callback is for another provider' };
  return { ok: true, pending };
}
