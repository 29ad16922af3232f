/**
 * The admin plugin: the super-admin secret, its header (`x-service-admin-secret`) and cookie
 * authentication, admin session operations and the deprecated mutations.
 */
import type { Principal } from '../../core/context.js';
import { definePlugin } from '../../core/plugin.js';
import { deprecatedOperations } from './deprecated.js';
import { ADMIN_SECRET_LOGIN_MAX, adminOperations } from './operations.js';
import { ADMIN_COOKIE, adminSessionValid, secretMatcher } from './session.js';

export const ADMIN_SECRET_MESSAGE = '--admin-secret is required and must not be empty.';

export const adminPlugin = definePlugin({
  name: 'admin',
  description: 'Super-admin authentication (secret header, service-admin cookie) and admin session operations.',
  flags: [
    {
      name: 'admin-secret',
      type: 'string',
      required: true,
      secret: true,
      description: 'Super-admin secret (no default; must not be empty).',
    },
    {
      name: 'disable-admin-header-auth',
      type: 'boolean',
      default: false,
      description:
        'Refuse the x-service-admin-secret header; only the admin session cookie is honored (recommended for production).',
    },
    {
      name: 'admin-cookie-secure',
      type: 'boolean',
      description: 'Secure flag of the admin cookie; default: true when --url is https.',
    },
  ],
  // Only non-emptiness is enforced, and the message is exact.
  validateConfig: (config) =>
    config.has('admin-secret') && (config.string('admin-secret') ?? '').length > 0 ? undefined : ADMIN_SECRET_MESSAGE,
  operations: [...adminOperations, ...deprecatedOperations],
  setup(ctx) {
    const adminSecret = ctx.config.string('admin-secret') ?? '';
    const matchesSecret = secretMatcher(adminSecret, 'header');
    const headerAllowed = !ctx.config.bool('disable-admin-header-auth');
    // --admin-secret must only be non-empty, so a longer secret starts; `_admin_login` takes at most
    // ADMIN_SECRET_LOGIN_MAX characters and can never match it (with the header refused, no admin
    // could sign in at all), so the operator is told at startup.
    if (adminSecret.length > ADMIN_SECRET_LOGIN_MAX) {
      ctx.logger.warn(
        { length: adminSecret.length, max: ADMIN_SECRET_LOGIN_MAX, headerAllowed },
        `--admin-secret is longer than _admin_login accepts (${ADMIN_SECRET_LOGIN_MAX} characters): only the x-service-admin-secret header can use it`,
      );
    }
    // The header is compared in memory, so a call carrying it is admitted without a promise; only
    // the session cookie needs the memory store.
    const superAdmin = (): Principal => ({ kind: 'admin', subject: 'admin:super' });
    ctx.authenticate('admin', (req) => {
      const header = req.header('x-service-admin-secret');
      if (headerAllowed && header !== undefined && matchesSecret(header)) return superAdmin();
      const cookie = req.cookie(ADMIN_COOKIE);
      if (!cookie) return null;
      return adminSessionValid(ctx.memory, cookie, adminSecret).then((valid) => (valid ? superAdmin() : null));
    });
  },
});
