/** The `password-reset` service: mailed links through which a user sets a password. */
import type { RequestContext } from '../../core/context.js';
import type { UserRecord } from '../users/index.js';

/** `reset`: forgot_password's link (30 minutes); `invite`: an invitation's (7 days). */
export type PasswordLinkKind = 'reset' | 'invite';

export interface PasswordLinkGrant {
  userId: string;
  email: string;
  kind: PasswordLinkKind;
}

export interface PasswordResetService {
  /**
   * A new single-use link to the reset form for the user's address: `redirectUri` when given
   * (checked by the caller), else `--reset-password-url`, else the hosted page's form.
   */
  issueLink(ctx: RequestContext, user: UserRecord, kind: PasswordLinkKind, redirectUri?: string): Promise<string>;
}

declare module '../../core/services.js' {
  interface Services {
    'password-reset': PasswordResetService;
  }
}
