/**
 * The magic-link plugin (`--enable-magic-link-login`): `magic_link_login` mails a single-use,
 * short-lived sign-in link; the email-verification plugin's `/verify_email` and `verify_email`
 * redeem it through the redeemer registered here.
 */
import { defineOperation } from '../../core/operations.js';
import { definePlugin } from '../../core/plugin.js';
import { MessageResponse } from '../../core/schema.js';
import { linkTokens } from '../email/index.js';
import { redeemMagicLink } from './redeem.js';
import { requestMagicLink, type MagicLinkGrant } from './request.js';
import { MagicLinkLoginRequest } from './schemas.js';

export const magicLinkPlugin = definePlugin({
  name: 'magic-link',
  description: 'Passwordless login by a single-use emailed link.',
  dependsOn: ['users', 'sign-in', 'email', 'email-verification'],
  flags: [
    {
      name: 'enable-magic-link-login',
      type: 'boolean',
      default: false,
      description: 'Passwordless login by emailed link (needs --smtp-host).',
    },
  ],
  meta: (config) => ({ is_magic_link_login_enabled: config.bool('enable-magic-link-login') }),
  operations: [
    defineOperation({
      name: 'magic_link_login',
      kind: 'mutation',
      access: 'public',
      description: 'Mails a single-use sign-in link; creates the account when signup is enabled.',
      input: MagicLinkLoginRequest,
      output: MessageResponse,
      handler: (ctx, input) =>
        requestMagicLink(ctx, input, linkTokens<MagicLinkGrant>(ctx.kernel.memory, 'magic-link')),
    }),
  ],
  setup(ctx) {
    const tokens = linkTokens<MagicLinkGrant>(ctx.memory, 'magic-link');
    ctx.service('email-verification').addRedeemer((rctx, token) => redeemMagicLink(rctx, token, tokens));
  },
});
