/**
 * The hosted page's phone forms (`--enable-mobile-basic-authentication`): the texted code that
 * proves a new or unverified number (`--enable-phone-verification`; verify_otp and resend_otp with
 * the `phone_number`), and the password reset by a texted code (forgot_password with the
 * `phone_number`, then reset_password with the `otp`). Each form runs the same operation as every
 * API client. The number travels in the form bodies and the page is the answer to the post, so
 * neither the number nor a code ever appears in a URL.
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import type {} from '../sms/index.js';
import { back, errorLine, field, notice, notInBuild, page, run } from './account-forms.js';
import { esc } from './html.js';
import { mfaLocation, type WithheldAuth } from './mfa-routes.js';
import { safeReturn } from './routes.js';

/** Phone accounts sign up and in with their number and a password. */
export const phoneAccounts = (ctx: RequestContext): boolean =>
  ctx.kernel.config.bool('enable-mobile-basic-authentication');

/** A reset by texted code needs phone accounts, the operations and a configured SMS gateway. */
export const phoneResetAvailable = (ctx: RequestContext): boolean =>
  phoneAccounts(ctx) &&
  ctx.kernel.operations.has('forgot_password') &&
  ctx.kernel.operations.has('reset_password') &&
  ctx.kernel.hasService('sms') &&
  ctx.kernel.service('sms').configured;

const hiddenFields = (returnTo: string, phoneNumber: string) =>
  `<input type="hidden" name="return_to" value="${esc(returnTo)}">` +
  `<input type="hidden" name="phone_number" value="${esc(phoneNumber)}">`;

const codeField = `<label for="otp">Code</label><input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required>`;

/** The code form of a number waiting for its proof, with "send a new code". */
export function phoneCodePage(
  ctx: RequestContext,
  status: number,
  o: { returnTo: string; phoneNumber: string; error?: string; notice?: string },
): RawResponse {
  const fields = hiddenFields(o.returnTo, o.phoneNumber);
  return page(
    ctx,
    status,
    'Verify your phone number',
    errorLine(o.error) +
      (o.notice ? notice(o.notice) : '') +
      `<p>Enter the code we texted to <strong id="phone">${esc(o.phoneNumber)}</strong>.</p>` +
      `<form method="post" action="/app/phone/verify">${fields}${codeField}<button type="submit">Verify</button></form>` +
      `<form method="post" action="/app/phone/resend">${fields}<button type="submit" id="resend" style="background:none;color:#1f4fd1;margin-top:.4rem">Send a new code</button></form>` +
      back(o.returnTo),
  );
}

function numberForm(returnTo: string, phoneNumber = ''): string {
  return (
    `<form method="post" action="/app/forgot-password/phone"><input type="hidden" name="return_to" value="${esc(returnTo)}">` +
    `<label for="phone_number">Phone number</label><input id="phone_number" name="phone_number" type="tel" autocomplete="tel" placeholder="+15551234567" required value="${esc(phoneNumber)}">` +
    `<button type="submit">Text me a code</button></form>`
  );
}

function resetByCodeForm(returnTo: string, phoneNumber: string): string {
  return (
    `<form method="post" action="/app/reset-password/phone">${hiddenFields(returnTo, phoneNumber)}${codeField}` +
    `<label for="password">New password</label><input id="password" name="password" type="password" autocomplete="new-password" required>` +
    `<label for="confirm_password">Confirm new password</label><input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>` +
    `<button type="submit">Set password</button></form>`
  );
}

const seeOther = (location: string): RawResponse => ({
  status: 303,
  headers: { location, 'cache-control': 'no-store' },
});

/** verify_otp or resend_otp for the number of the form; a refusal shows the code form again. */
async function codeStep(
  req: RawRequest,
  ctx: RequestContext,
  operation: 'verify_otp' | 'resend_otp',
): Promise<RawResponse> {
  if (!phoneAccounts(ctx) || !ctx.kernel.operations.has(operation)) return notInBuild();
  const returnTo = safeReturn(field(req.body, 'return_to'));
  const phoneNumber = field(req.body, 'phone_number') ?? '';
  try {
    if (operation === 'resend_otp') {
      await ctx.kernel.invoke('resend_otp', ctx, { phone_number: phoneNumber });
      return phoneCodePage(ctx, 200, { returnTo, phoneNumber, notice: 'A new code is on its way.' });
    }
    const result = (await ctx.kernel.invoke('verify_otp', ctx, {
      phone_number: phoneNumber,
      otp: field(req.body, 'otp') ?? '',
    })) as WithheldAuth;
    if (result.access_token) return seeOther(returnTo);
    // The number is proven; the MFA gate holds the sign-in back for its own screens.
    if (ctx.setCookies.some((c) => c.name === 'mfa')) return seeOther(mfaLocation(ctx, result, returnTo));
    return phoneCodePage(ctx, 401, {
      returnTo,
      phoneNumber,
      error: 'Additional verification is required; finish it in the application.',
    });
  } catch (err) {
    if (err instanceof ServiceError && err.status.http < 500)
      return phoneCodePage(ctx, err.status.http, { returnTo, phoneNumber, error: err.message });
    throw err;
  }
}

const RESET_TITLE = 'Reset your password';

export const phoneFormRoutes: RawRoute[] = [
  { method: 'POST', path: '/app/phone/verify', form: true, handler: (req, ctx) => codeStep(req, ctx, 'verify_otp') },
  { method: 'POST', path: '/app/phone/resend', form: true, handler: (req, ctx) => codeStep(req, ctx, 'resend_otp') },
  {
    method: 'GET',
    path: '/app/forgot-password/phone',
    handler: async (req, ctx) => {
      if (!phoneResetAvailable(ctx)) return notInBuild();
      const returnTo = safeReturn(req.query.return_to);
      return page(ctx, 200, RESET_TITLE, numberForm(returnTo) + back(returnTo));
    },
  },
  {
    method: 'POST',
    path: '/app/forgot-password/phone',
    form: true,
    handler: async (req, ctx) => {
      if (!phoneResetAvailable(ctx)) return notInBuild();
      const returnTo = safeReturn(field(req.body, 'return_to'));
      const phoneNumber = field(req.body, 'phone_number') ?? '';
      const result = await run(ctx, 'forgot_password', { phone_number: phoneNumber });
      if (result instanceof ServiceError)
        return page(
          ctx,
          result.status.http,
          RESET_TITLE,
          errorLine(result.message) + numberForm(returnTo, phoneNumber) + back(returnTo),
        );
      // The same answer whether or not the number has an account (no enumeration).
      return page(
        ctx,
        200,
        'Choose a new password',
        notice(result.message) + resetByCodeForm(returnTo, phoneNumber) + back(returnTo),
      );
    },
  },
  {
    method: 'POST',
    path: '/app/reset-password/phone',
    form: true,
    handler: async (req, ctx) => {
      if (!phoneResetAvailable(ctx)) return notInBuild();
      const returnTo = safeReturn(field(req.body, 'return_to'));
      const phoneNumber = field(req.body, 'phone_number') ?? '';
      const result = await run(ctx, 'reset_password', {
        phone_number: phoneNumber,
        otp: field(req.body, 'otp') ?? '',
        password: field(req.body, 'password') ?? '',
        confirm_password: field(req.body, 'confirm_password') ?? '',
      });
      if (result instanceof ServiceError)
        return page(
          ctx,
          result.status.http,
          'Choose a new password',
          errorLine(result.message) + resetByCodeForm(returnTo, phoneNumber) + back(returnTo),
        );
      return page(
        ctx,
        200,
        'Password changed',
        notice('Your password was changed. Sign in with the new one.') +
          `<p><a id="sign-in" href="${esc(`/app?${new URLSearchParams({ return_to: returnTo, method: 'phone' })}`)}">Sign in</a></p>`,
      );
    },
  },
];
