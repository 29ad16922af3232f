/**
 * The hosted page's mail-based forms (under `GET /app`): forgot password, the reset form a
 * reset or invitation link opens (`/app/reset-password?token=`), a magic-link request, and the
 * landing of a verification or magic link (`/app/verified`). Each form runs the same operation
 * as every API client (forgot_password, reset_password, magic_link_login), so no rule is kept
 * twice; a form whose operation is not in the build answers 404.
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import { esc } from './html.js';
import { phoneResetAvailable } from './phone-forms.js';
import { safeReturn } from './routes.js';

const HTML = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:",
  'referrer-policy': 'same-origin',
};

const STYLE =
  'body{font-family:system-ui,sans-serif;background:#f5f5f7;margin:0}main{max-width:360px;margin:10vh auto;background:#fff;padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0001}' +
  'label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.55rem;box-sizing:border-box;border:1px solid #ccc;border-radius:6px}' +
  'button{margin-top:1.2rem;width:100%;padding:.65rem;border:0;border-radius:6px;background:#1f4fd1;color:#fff;font-size:1rem}.error{color:#b00020}';

/** The hosted reset form for a token. */
export const resetFormPath = (token: string): string => `/app/reset-password?${new URLSearchParams({ token })}`;

/**
 * The links the sign-in form shows to these forms, for the operations the build has; the phone
 * sign-in form links to the reset by a texted code (phone-forms.ts) instead of the mailed one.
 */
export function accountLinks(
  ctx: RequestContext,
  returnTo: string,
  signIn: 'email' | 'phone' = 'email',
): { label: string; href: string }[] {
  const q = `?${new URLSearchParams({ return_to: returnTo })}`;
  const links: { label: string; href: string }[] = [];
  if (signIn === 'phone') {
    if (phoneResetAvailable(ctx))
      links.push({ label: 'Forgot your password? Reset it by SMS', href: `/app/forgot-password/phone${q}` });
    return links;
  }
  if (ctx.kernel.operations.has('forgot_password'))
    links.push({ label: 'Forgot your password?', href: `/app/forgot-password${q}` });
  if (ctx.kernel.operations.has('magic_link_login') && ctx.kernel.config.bool('enable-magic-link-login'))
    links.push({ label: 'Email me a sign-in link', href: `/app/magic-link${q}` });
  return links;
}

/** A page of these forms: a title and its body, under the page's policy (no script). */
export function page(ctx: RequestContext, status: number, title: string, body: string): RawResponse {
  const cfg = ctx.kernel.config;
  const organization = cfg.string('organization-name', 'Latchkey');
  const logo = cfg.string('organization-logo');
  const img = logo ? `<img src="${esc(logo)}" alt="" height="40">` : '';
  return {
    status,
    headers: HTML,
    body: `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(title)} · ${esc(organization)}</title><style>${STYLE}</style></head><body><main>${img}<p>${esc(organization)}</p><h1>${esc(title)}</h1>${body}</main></body></html>`,
  };
}

export const errorLine = (message: string | undefined) =>
  message ? `<p class="error" role="alert">${esc(message)}</p>` : '';
export const notice = (message: string) => `<p id="notice" role="status">${esc(message)}</p>`;
export const back = (returnTo: string) =>
  `<p><a href="${esc(`/app?${new URLSearchParams({ return_to: returnTo })}`)}">Back to sign in</a></p>`;

export const field = (body: unknown, name: string): string | undefined => {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' && v.length > 0 ? v : undefined;
};

export const notInBuild = (): RawResponse => ({
  status: 404,
  headers: { 'cache-control': 'no-store' },
  body: { code: 'not_found', message: 'not found' },
});

/** Runs an operation for a form; a 4xx comes back as the error to show, anything else is thrown. */
export async function run(
  ctx: RequestContext,
  operation: string,
  input: Record<string, string>,
): Promise<{ message: string } | ServiceError> {
  try {
    return (await ctx.kernel.invoke(operation, ctx, input)) as { message: string };
  } catch (err) {
    if (err instanceof ServiceError && err.status.http < 500) return err;
    throw err;
  }
}

function emailForm(action: string, returnTo: string, button: string, email = ''): string {
  return (
    `<form method="post" action="${action}"><input type="hidden" name="return_to" value="${esc(returnTo)}">` +
    `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(email)}">` +
    `<button type="submit">${esc(button)}</button></form>`
  );
}

function resetForm(token: string): string {
  return (
    `<form method="post" action="/app/reset-password"><input type="hidden" name="token" value="${esc(token)}">` +
    `<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" required>` +
    `<label for="confirm_password">Confirm new password</label><input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>` +
    `<button type="submit">Set password</button></form>`
  );
}

/** A request form posting an email to `operation`, then "check your inbox". */
function mailRequest(path: string, operation: string, title: string, button: string): RawRoute[] {
  const visible = (ctx: RequestContext) =>
    ctx.kernel.operations.has(operation) &&
    (operation !== 'magic_link_login' || ctx.kernel.config.bool('enable-magic-link-login'));
  return [
    {
      method: 'GET',
      path,
      handler: async (req, ctx) => {
        if (!visible(ctx)) return notInBuild();
        const returnTo = safeReturn(req.query.return_to);
        return page(ctx, 200, title, emailForm(path, returnTo, button) + back(returnTo));
      },
    },
    {
      method: 'POST',
      path,
      form: true,
      handler: async (req: RawRequest, ctx) => {
        if (!visible(ctx)) return notInBuild();
        const returnTo = safeReturn(field(req.body, 'return_to'));
        const email = field(req.body, 'email') ?? '';
        const input: Record<string, string> = { email };
        // A magic link brings the browser back to where the sign-in started.
        if (operation === 'magic_link_login' && returnTo !== '/app')
          input.redirect_uri = `${ctx.kernel.config.string('url', '').replace(/\/+$/, '')}${returnTo}`;
        const result = await run(ctx, operation, input);
        if (result instanceof ServiceError)
          return page(
            ctx,
            result.status.http,
            title,
            errorLine(result.message) + emailForm(path, returnTo, button, email) + back(returnTo),
          );
        return page(ctx, 200, 'Check your inbox', notice(result.message) + back(returnTo));
      },
    },
  ];
}

export const accountFormRoutes: RawRoute[] = [
  ...mailRequest('/app/forgot-password', 'forgot_password', 'Reset your password', 'Send me a reset link'),
  ...mailRequest('/app/magic-link', 'magic_link_login', 'Sign in by email', 'Send me a sign-in link'),
  {
    method: 'GET',
    path: '/app/reset-password',
    handler: async (req, ctx) => {
      if (!ctx.kernel.operations.has('reset_password')) return notInBuild();
      const token = field(req.query, 'token') ?? '';
      if (token.length === 0 || token.length > 256)
        return page(
          ctx,
          400,
          'Choose a new password',
          errorLine('This link is incomplete; ask for a new one.') + back('/app'),
        );
      return page(ctx, 200, 'Choose a new password', resetForm(token));
    },
  },
  {
    method: 'POST',
    path: '/app/reset-password',
    form: true,
    handler: async (req, ctx) => {
      if (!ctx.kernel.operations.has('reset_password')) return notInBuild();
      const token = field(req.body, 'token') ?? '';
      const result = await run(ctx, 'reset_password', {
        token,
        password: field(req.body, 'password') ?? '',
        confirm_password: field(req.body, 'confirm_password') ?? '',
      });
      if (result instanceof ServiceError)
        return page(ctx, result.status.http, 'Choose a new password', errorLine(result.message) + resetForm(token));
      return page(
        ctx,
        200,
        'Password changed',
        notice('Your password was changed. Sign in with the new one.') + back('/app'),
      );
    },
  },
  {
    // Where /verify_email sends the browser when no other destination is allowed.
    method: 'GET',
    path: '/app/verified',
    handler: async (req, ctx) => {
      const failed = field(req.query, 'error_description');
      if (failed) return page(ctx, 400, 'This link did not work', errorLine(failed) + back('/app'));
      return page(
        ctx,
        200,
        'You are signed in',
        notice(field(req.query, 'message') ?? 'Your email address is verified.') + `<p><a href="/app">Continue</a></p>`,
      );
    },
  },
];
