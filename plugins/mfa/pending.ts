/**
 * Pending sign-ins: a first factor the gate withheld a session from, kept in the memory store
 * for a few minutes under the `mfa` cookie (the short-lived MFA challenge session of login and
 * session). The store key is a digest of the cookie value, so a copy of the store names no cookie.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Config } from '../../core/config.js';
import type { CookieOptions, RequestContext } from '../../core/context.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { SignInAttempt } from '../sign-in/index.js';
import type { PendingSignIn, PendingState } from './types.js';

export const MFA_COOKIE = 'mfa';
/** Long enough to read a code from a mail or an app, short enough that a stolen cookie soon dies. */
export const PENDING_TTL_MS = 10 * 60_000;
const PREFIX = 'mfa:pending:';

const keyOf = (cookie: string): string => PREFIX + createHash('sha256').update(cookie).digest('base64url');

/** The `mfa` cookie's attributes follow the app session cookies' (`--app-cookie-secure`, `--app-cookie-same-site`). */
function cookieOptions(config: Config, maxAge: number): CookieOptions {
  const secure = config.bool('app-cookie-secure', true);
  const asked = (config.string('app-cookie-same-site', 'none') || 'none') as NonNullable<CookieOptions['sameSite']>;
  // Browsers drop SameSite=None without Secure: plain-HTTP deployments get Lax, as the session cookies do.
  const sameSite = asked === 'none' && !secure ? 'lax' : asked;
  return { httpOnly: true, secure, sameSite, path: '/', maxAge };
}

export interface PendingStore {
  open(ctx: RequestContext, attempt: SignInAttempt, state: PendingState): Promise<PendingSignIn>;
  read(ctx: RequestContext): Promise<PendingSignIn | null>;
  /** Gives the pending sign-in and its cookie a fresh lifetime (`resend_otp` sets the `mfa` cookie again). */
  renew(ctx: RequestContext, pending: PendingSignIn): Promise<void>;
  /** Takes the pending sign-in out of the store: of two concurrent completions one gets it. */
  take(pending: PendingSignIn): Promise<boolean>;
  clearCookie(ctx: RequestContext): void;
}

export function createPendingStore(memory: MemoryStore, config: Config): PendingStore {
  return {
    async open(ctx, attempt, state) {
      const cookie = randomBytes(32).toString('base64url');
      const pending: PendingSignIn = {
        key: keyOf(cookie),
        state,
        userId: attempt.user.id,
        method: attempt.method,
        roles: attempt.roles,
        scopes: attempt.scopes,
        amr: attempt.amr,
        message: attempt.message,
        ...(attempt.readAt !== undefined ? { readAt: attempt.readAt } : {}),
        expiresAt: Date.now() + PENDING_TTL_MS,
      };
      await memory.set(pending.key, JSON.stringify(pending), PENDING_TTL_MS);
      ctx.setCookie(MFA_COOKIE, cookie, cookieOptions(config, PENDING_TTL_MS / 1000));
      return pending;
    },
    async read(ctx) {
      const cookie = ctx.cookie(MFA_COOKIE);
      if (!cookie || cookie.length > 128) return null;
      const text = await memory.get(keyOf(cookie));
      if (!text) return null;
      const pending = JSON.parse(text) as PendingSignIn;
      return pending.expiresAt > Date.now() ? pending : null;
    },
    async renew(ctx, pending) {
      const cookie = ctx.cookie(MFA_COOKIE);
      if (!cookie || keyOf(cookie) !== pending.key) return;
      const renewed: PendingSignIn = { ...pending, expiresAt: Date.now() + PENDING_TTL_MS };
      // Only while it is still there: a sign-in completed meanwhile stays completed.
      if (await memory.replace(pending.key, JSON.stringify(renewed), PENDING_TTL_MS))
        ctx.setCookie(MFA_COOKIE, cookie, cookieOptions(config, PENDING_TTL_MS / 1000));
    },
    async take(pending) {
      return (await memory.consume(pending.key)) !== null;
    },
    clearCookie(ctx) {
      ctx.clearCookie(MFA_COOKIE, cookieOptions(config, 0));
    },
  };
}
