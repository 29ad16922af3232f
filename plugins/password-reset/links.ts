/** Reset links: where they point and how long they live. */
import type { RequestContext } from '../../core/context.js';
import { linkTokens, withQuery, type LinkTokens } from '../email/index.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { PasswordLinkGrant, PasswordLinkKind, PasswordResetService } from './types.js';

export const LINK_TTL_MS: Record<PasswordLinkKind, number> = {
  reset: 30 * 60 * 1000,
  invite: 7 * 24 * 60 * 60 * 1000,
};

/** The hosted page's reset form (plugins/login-page). */
export const HOSTED_RESET_PATH = '/app/reset-password';

export const passwordTokens = (memory: MemoryStore): LinkTokens<PasswordLinkGrant> =>
  linkTokens<PasswordLinkGrant>(memory, 'password-link');

/** The form a reset link opens: the caller's, `--reset-password-url`, or the hosted one. */
export function resetFormUrl(ctx: RequestContext, redirectUri?: string): string {
  const { config } = ctx.kernel;
  return (
    redirectUri ??
    config.string('reset-password-url') ??
    `${config.string('url', '').replace(/\/+$/, '')}${HOSTED_RESET_PATH}`
  );
}

export function createPasswordResetService(memory: MemoryStore): PasswordResetService {
  const tokens = passwordTokens(memory);
  return {
    async issueLink(ctx, user, kind, redirectUri) {
      const token = await tokens.issue({ userId: user.id, email: user.email ?? '', kind }, LINK_TTL_MS[kind]);
      return withQuery(resetFormUrl(ctx, redirectUri), { token });
    },
  };
}
