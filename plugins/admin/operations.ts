/** Admin session operations: `_admin_login`, `_admin_logout`, `_admin_session`, `_admin_meta`. */
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { Bool, InputObject, MessageResponse, OutputObject, Str, Type } from '../../core/schema.js';
import { ADMIN_COOKIE, ADMIN_SESSION_TTL_MS, endAdminSession, secretMatches, startAdminSession } from './session.js';

export const AdminMeta = OutputObject('AdminMeta', {
  roles: Type.Array(Type.String()),
  default_roles: Type.Array(Type.String()),
  protected_roles: Type.Array(Type.String()),
  is_multi_factor_auth_service_enabled: Bool(),
});

function cookieSecure(ctx: RequestContext): boolean {
  const cfg = ctx.kernel.config;
  if (cfg.raw('admin-cookie-secure') !== undefined) return cfg.bool('admin-cookie-secure');
  return (cfg.string('url') ?? '').startsWith('https:');
}

async function setAdminCookie(ctx: RequestContext): Promise<void> {
  const token = await startAdminSession(ctx.kernel.memory, ctx.kernel.config.string('admin-secret') ?? '');
  ctx.setCookie(ADMIN_COOKIE, token, {
    httpOnly: true,
    secure: cookieSecure(ctx),
    sameSite: 'lax',
    maxAge: ADMIN_SESSION_TTL_MS / 1000,
  });
}

/** The longest admin secret `_admin_login` takes (a bound on a public input; see index.ts). */
export const ADMIN_SECRET_LOGIN_MAX = 1024;

export const adminOperations: AnyOperation[] = [
  defineOperation({
    name: '_admin_login',
    kind: 'mutation',
    access: 'public',
    description: 'Exchanges the admin secret for the `service-admin` session cookie.',
    rest: { path: 'admin/login' },
    input: InputObject('AdminLoginRequest', { admin_secret: Str({ max: ADMIN_SECRET_LOGIN_MAX }) }),
    output: MessageResponse,
    audit: {
      action: 'admin.login',
      resourceType: 'admin_session',
      failures: true,
      actor: ({ output }) => (output ? { kind: 'admin', id: 'admin:super' } : undefined),
    },
    handler: async (ctx, input) => {
      if (!secretMatches(ctx.kernel.config.string('admin-secret') ?? '', input.admin_secret)) {
        throw new ServiceError('unauthenticated', 'invalid admin secret');
      }
      await setAdminCookie(ctx);
      return { message: 'admin logged in successfully' };
    },
  }),
  defineOperation({
    name: '_admin_logout',
    kind: 'mutation',
    access: 'admin',
    description: 'Ends the admin session.',
    rest: { path: 'admin/logout', method: 'POST' },
    output: MessageResponse,
    audit: { action: 'admin.logout', resourceType: 'admin_session' },
    handler: async (ctx) => {
      await endAdminSession(ctx.kernel.memory, ctx.cookie(ADMIN_COOKIE));
      ctx.clearCookie(ADMIN_COOKIE, { secure: cookieSecure(ctx), sameSite: 'lax' });
      return { message: 'admin logged out successfully' };
    },
  }),
  defineOperation({
    name: '_admin_session',
    kind: 'query',
    access: 'admin',
    description: 'Checks the admin session and issues a fresh `service-admin` cookie.',
    // REST keeps the specified GET; GraphQL runs it from a POST only (a cross-site GET would end
    // the admin's session).
    changesState: true,
    rest: { path: 'admin/session', method: 'GET' },
    output: MessageResponse,
    audit: { action: 'admin.session_read', resourceType: 'admin_session' },
    handler: async (ctx) => {
      await endAdminSession(ctx.kernel.memory, ctx.cookie(ADMIN_COOKIE));
      await setAdminCookie(ctx);
      return { message: 'admin session refreshed successfully' };
    },
  }),
  defineOperation({
    name: '_admin_meta',
    kind: 'query',
    access: 'admin',
    description: 'Meta with admin-only fields.',
    rest: { path: 'admin/meta', method: 'GET' },
    output: AdminMeta,
    audit: { action: 'admin.meta_read', resourceType: 'admin_meta' },
    handler: async (ctx) => {
      const cfg = ctx.kernel.config;
      return {
        roles: cfg.list('roles'),
        default_roles: cfg.list('default-roles'),
        protected_roles: cfg.list('protected-roles'),
        // What /v1/meta says of MFA in this build: with no plugin offering a factor the service
        // is not there, whatever --disable-mfa says, so the two always agree.
        is_multi_factor_auth_service_enabled: ctx.kernel.metaValues().is_multi_factor_auth_enabled === true,
      };
    },
  }),
];
