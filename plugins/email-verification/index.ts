/**
 * The email-verification plugin (`--enable-email-verification`): the mail for each verification
 * request the users service stores (at signup and for a new address), `verify_email`,
 * `resend_verify_email` and the mailed link's `GET /verify_email`. Other plugins register
 * redeemers for their own link tokens (the magic link) through its service.
 *
 * The users service stores a request with its address in one commit and hands the plain token
 * over on the `email.verification_requested` hook before it, with the commit's unit of work; this
 * plugin adds the mail's outbox row to that unit, so the same commit stores it (docs/email.md).
 */
import { definePlugin } from '../../core/plugin.js';
import type { EmailLinksService, LinkRedeemer } from './link-tokens.js';
import { verificationOperations } from './operations.js';
import { verificationRoutes } from './routes.js';
import { sendVerificationMail } from './send.js';

export type { EmailLinksService, LinkRedeemer, Redeemed } from './link-tokens.js';
export { DEFAULT_SCOPES, EMAIL_AMR } from './verify.js';

export const emailVerificationPlugin = definePlugin<EmailLinksService>({
  name: 'email-verification',
  description: 'Email verification: the mailed link, verify_email and resend_verify_email.',
  dependsOn: ['users', 'sessions', 'tokens', 'sign-in', 'accounts', 'email'],
  flags: [
    {
      name: 'enable-email-verification',
      type: 'boolean',
      default: false,
      description:
        'Require a verified email address: proven after signup and after a change of address (update_profile, or update_user unless the admin marks it verified). Needs --smtp-host.',
    },
  ],
  operations: verificationOperations,
  routes: verificationRoutes,
  setup(ctx) {
    const deps = { url: ctx.config.string('url', ''), users: ctx.service('users'), email: ctx.service('email') };
    ctx.hooks.on('email.verification_requested', (p) =>
      sendVerificationMail(deps, { identifier: p.identifier, email: p.email, redirectUri: p.redirectUri }, p.token, {
        name: p.name,
        unit: p.unit,
      }),
    );
    const redeemers: LinkRedeemer[] = [];
    return { redeemers, addRedeemer: (r) => void redeemers.push(r) };
  },
});
