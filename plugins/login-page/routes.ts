/**
 * The hosted login page (`GET /app`, `--enable-login-page`). Sign-in and sign-up run the
 * same `login` / `signup` operations as every API client (no second copy of the rules); the
 * operation sets the session cookies, then the browser goes back to `return_to` — typically the
 * /authorize request that sent it here, which resumes unchanged.
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import { flagsFromQuery, mfaLocation, type WithheldAuth } from './mfa-routes.js';
import { renderPage, type PageOptions } from './html.js';
import { accountLinks, resetFormPath } from './account-forms.js';
import { phoneAccounts, phoneCodePage } from './phone-forms.js';
import { socialLinks } from './social-links.js';

// No form-action directive: Chromium applies it to the redirects after the POST (on to the client).
/**
 * `Referrer-Policy: same-origin` instead of the default `no-referrer`: under `no-referrer` the
 * page's own form posts carry `Origin: null`, which the server trusts only with the browser's
 * Sec-Fetch-Site (transports/http/credentialed-origins.ts); browsers without that header would
 * then get no session cookie. Other sites still get no referrer.
 */
const HTML = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  // script-src and connect-src 'self': the passkey buttons' script (passkey-script.ts) and its calls.
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; script-src 'self'; connect-src 'self'",
  'referrer-policy': 'same-origin',
};

/** Stands in for the service's origin while a return path is resolved; never sent anywhere. */
const PROBE_ORIGIN = 'https://return-to.invalid';

/**
 * Only a path on this service: the page must never become an open redirect. The value is
 * resolved the way a browser would resolve the Location header (WHATWG URL), and what is sent is
 * that resolution's path, query and fragment, never the raw text. A browser drops tabs and
 * newlines inside a URL and reads `\` as `/`, so `/<TAB>/evil.example` goes to another site
 * while a check of the raw text sees a path; such characters, and any outside
 * printable ASCII (also a 500 in the Location header), are refused outright.
 */
export function safeReturn(value: unknown): string {
  if (typeof value !== 'string' || value.length > 4096) return '/app';
  if (!/^\/[\x21-\x7E]*$/.test(value) || value.startsWith('//') || value.includes('\\')) return '/app';
  let url: URL;
  try {
    url = new URL(value, PROBE_ORIGIN);
  } catch {
    return '/app';
  }
  if (url.origin !== PROBE_ORIGIN) return '/app';
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Resolution can turn a path into a scheme-relative one (`/.//evil` becomes `//evil`).
  return path.startsWith('//') ? '/app' : path;
}

const field = (body: unknown, name: string): string | undefined => {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' && v.length > 0 ? v : undefined;
};

function page(
  ctx: RequestContext,
  status: number,
  o: Omit<PageOptions, 'organization' | 'logo' | 'signupEnabled' | 'phone'>,
): RawResponse {
  const cfg = ctx.kernel.config;
  const logo = cfg.string('organization-logo');
  return {
    status,
    headers: HTML,
    body: renderPage({
      ...o,
      organization: cfg.string('organization-name', 'Latchkey'),
      ...(logo ? { logo } : {}),
      signupEnabled: cfg.bool('enable-signup', true),
      phone: phoneAccounts(ctx),
      accountLinks: accountLinks(ctx, o.returnTo, o.view === 'phone-login' ? 'phone' : 'email'),
      socialLinks: socialLinks(ctx, o.returnTo),
      passkeys: ctx.kernel.operations.has('webauthn_login_options'),
    }),
  };
}

async function submit(req: RawRequest, ctx: RequestContext, operation: 'login' | 'signup'): Promise<RawResponse> {
  const returnTo = safeReturn(field(req.body, 'return_to'));
  const email = field(req.body, 'email');
  // A phone form sends the number instead of the address (the page shows it only where allowed).
  const phoneNumber = email ? undefined : field(req.body, 'phone_number');
  const input: Record<string, string> = { password: field(req.body, 'password') ?? '' };
  if (email) input.email = email;
  if (phoneNumber) input.phone_number = phoneNumber;
  const again = {
    view: phoneNumber ? (`phone-${operation}` as const) : operation,
    returnTo,
    ...(email ? { email } : {}),
    ...(phoneNumber ? { phoneNumber } : {}),
  };
  if (operation === 'signup') {
    input.confirm_password = field(req.body, 'confirm_password') ?? '';
    const given = field(req.body, 'given_name');
    if (given) input.given_name = given;
  }
  try {
    const result = (await ctx.kernel.invoke(operation, ctx, input)) as WithheldAuth & { user?: unknown };
    // A withheld sign-in (the MFA gate) goes on to its screen; a signup waiting for its email
    // to be proven has no mfa cookie and says so.
    if (!result.access_token && ctx.setCookies.some((c) => c.name === 'mfa'))
      return { status: 303, headers: { location: mfaLocation(ctx, result, returnTo), 'cache-control': 'no-store' } };
    // A number waiting for its proof (--enable-phone-verification): a code was texted; the code
    // form carries the number in its body, never in a URL.
    if (!result.access_token && phoneNumber && result.should_show_mobile_otp_screen)
      return phoneCodePage(ctx, 200, { returnTo, phoneNumber });
    if (!result.access_token) {
      return page(ctx, 401, {
        ...again,
        view: phoneNumber ? 'phone-login' : 'login',
        error: 'Additional verification is required; finish it in the application.',
      });
    }
    // 303: the browser follows with GET (RFC 9110 §15.4.4).
    return { status: 303, headers: { location: returnTo, 'cache-control': 'no-store' } };
  } catch (err) {
    if (err instanceof ServiceError && err.status.http < 500) {
      return page(ctx, err.status.http, { ...again, error: err.message });
    }
    throw err;
  }
}

/**
 * The email-first step: a match redirects to the connection's `login_url` (a path of this
 * service) with the original `redirect_uri` and `state` appended; anything else, an error of
 * discovery included, shows the normal login with the email filled in. Discovery never blocks a
 * login.
 */
async function discover(req: RawRequest, ctx: RequestContext): Promise<RawResponse> {
  const returnTo = safeReturn(field(req.body, 'return_to'));
  const email = field(req.body, 'email');
  if (email && ctx.kernel.hasService('org-discovery')) {
    try {
      const { connection } = await ctx.kernel.service('org-discovery').discover(email, ctx.ip);
      const target = connection ? ssoLocation(connection.login_url, returnTo) : undefined;
      if (target) return { status: 303, headers: { location: target, 'cache-control': 'no-store' } };
    } catch (err) {
      ctx.kernel.logger.debug({ err }, 'login page: discovery did not answer; showing the normal login');
    }
  }
  return page(ctx, 200, { view: 'login', returnTo, ...(email ? { email } : {}) });
}

/** The connection's login path with `redirect_uri` and `state` of the request that sent the user here; undefined unless a path of this service. */
function ssoLocation(loginUrl: string, returnTo: string): string | undefined {
  if (safeReturn(loginUrl) !== loginUrl) return undefined;
  const original = new URL(returnTo, PROBE_ORIGIN).searchParams;
  const target = new URL(loginUrl, PROBE_ORIGIN);
  for (const name of ['redirect_uri', 'state']) {
    const value = original.get(name);
    if (value !== null) target.searchParams.set(name, value);
  }
  return `${target.pathname}${target.search}`;
}

export const loginPageRoutes: RawRoute[] = [
  {
    method: 'GET',
    path: '/app',
    handler: async (req, ctx) => {
      // A reset link made for the app's own page (the authorizer-js SDK sends its redirectURL,
      // often this page, as forgot_password's redirect_uri) opens the reset form.
      const resetToken = req.query.token;
      if (resetToken && ctx.kernel.operations.has('reset_password'))
        return { status: 303, headers: { location: resetFormPath(resetToken), 'cache-control': 'no-store' } };
      const returnTo = safeReturn(req.query.return_to);
      // A sign-in withheld by the MFA gate (a social or SSO callback) goes on to its screen.
      const withheld = ctx.cookie('mfa') ? flagsFromQuery(req.query) : undefined;
      if (withheld)
        return {
          status: 303,
          headers: { location: mfaLocation(ctx, withheld, returnTo), 'cache-control': 'no-store' },
        };
      const signup = req.query.screen_hint === 'signup' && ctx.kernel.config.bool('enable-signup', true);
      if (!signup && req.query.return_to === undefined) {
        const session = await ctx.kernel.service('sessions').fromRequest(ctx);
        if (session)
          return page(ctx, 200, {
            view: 'signed-in',
            returnTo,
            ...(req.query.passkey === 'added' ? { notice: 'Passkey added.' } : {}),
          });
      }
      if (req.query.method === 'phone' && phoneAccounts(ctx))
        return page(ctx, 200, { view: signup ? 'phone-signup' : 'phone-login', returnTo });
      // With discovery on, the login starts with the email alone.
      const emailFirst = !signup && req.query.screen_hint !== 'password' && ctx.kernel.hasService('org-discovery');
      return page(ctx, 200, { view: signup ? 'signup' : emailFirst ? 'email-first' : 'login', returnTo });
    },
  },
  { method: 'POST', path: '/app/discover', form: true, handler: discover },
  { method: 'POST', path: '/app/login', form: true, handler: (req, ctx) => submit(req, ctx, 'login') },
  { method: 'POST', path: '/app/signup', form: true, handler: (req, ctx) => submit(req, ctx, 'signup') },
];
