/**
 * The hosted MFA screens and passkey endpoints of /app (docs/mfa.md). Each step runs the same
 * operation an API client calls (verify_otp, resend_otp, totp_mfa_setup, email_otp_mfa_setup,
 * skip_mfa_setup, the webauthn_* ceremonies) through `kernel.invoke`, so the rules live in one
 * place; the `mfa` cookie the login set names the pending sign-in throughout.
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { RawRequest, RawResponse, RawRoute } from '../../core/plugin.js';
import { MFA_SCREENS, renderMfaPage, type MfaPageOptions, type MfaScreen } from './mfa-html.js';
import { PASSKEY_SCRIPT } from './passkey-script.js';
import { safeReturn } from './routes.js';

/** The login page's policy plus this origin's script and its same-origin calls. */
export const MFA_HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; script-src 'self'; connect-src 'self'",
  'referrer-policy': 'same-origin',
};

/** What a login or signup answered, as far as the screens are concerned (the AuthResponse flags). */
export interface WithheldAuth {
  access_token?: string | null;
  should_show_email_otp_screen?: boolean | null;
  should_show_mobile_otp_screen?: boolean | null;
  should_show_totp_screen?: boolean | null;
  should_offer_webauthn_mfa_verify?: boolean | null;
  should_offer_webauthn_mfa_setup?: boolean | null;
  should_offer_email_otp_mfa_setup?: boolean | null;
  should_offer_sms_otp_mfa_setup?: boolean | null;
}

/** The screens a withheld answer calls for: the factors to prove, or else the ones to set up. */
export function screensOf(ctx: RequestContext, r: WithheldAuth): MfaScreen[] {
  const verify: MfaScreen[] = [];
  if (r.should_show_totp_screen) verify.push('totp');
  if (r.should_show_email_otp_screen) verify.push('email');
  if (r.should_show_mobile_otp_screen) verify.push('sms');
  if (r.should_offer_webauthn_mfa_verify) verify.push('passkey');
  if (verify.length > 0) return verify;
  const setup: MfaScreen[] = [];
  // TOTP needs nothing of the user, so it is offered wherever the factor is on (Meta is_totp_mfa_enabled).
  if (ctx.kernel.operations.has('totp_mfa_setup')) setup.push('setup-totp');
  if (r.should_offer_email_otp_mfa_setup) setup.push('setup-email');
  if (r.should_offer_sms_otp_mfa_setup) setup.push('setup-sms');
  if (r.should_offer_webauthn_mfa_setup) setup.push('setup-passkey');
  if (!ctx.kernel.config.bool('enforce-mfa')) setup.push('skip');
  return setup;
}

/**
 * The gate's flags a redirect carried in its query (a social or SSO callback coming back to the
 * hosted page with a withheld sign-in), or undefined when there are none.
 */
export function flagsFromQuery(query: Record<string, string | undefined>): WithheldAuth | undefined {
  const names = [
    'should_show_email_otp_screen',
    'should_show_mobile_otp_screen',
    'should_show_totp_screen',
    'should_offer_webauthn_mfa_verify',
    'should_offer_webauthn_mfa_setup',
    'should_offer_email_otp_mfa_setup',
    'should_offer_sms_otp_mfa_setup',
  ] as const;
  const flags: WithheldAuth = {};
  for (const n of names) if (query[n] === 'true') flags[n] = true;
  return Object.keys(flags).length > 0 ? flags : undefined;
}

/** Where the browser goes after a withheld login: the MFA screen for it. */
export function mfaLocation(ctx: RequestContext, r: WithheldAuth, returnTo: string): string {
  return `/app/mfa?${new URLSearchParams({ return_to: returnTo, s: screensOf(ctx, r).join(',') })}`;
}

const field = (body: unknown, name: string): string | undefined => {
  const v = body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return typeof v === 'string' && v.length > 0 ? v : undefined;
};

const screensFrom = (value: string | undefined): MfaScreen[] =>
  (value ?? '').split(',').filter((s): s is MfaScreen => (MFA_SCREENS as readonly string[]).includes(s));

function screen(ctx: RequestContext, status: number, o: Omit<MfaPageOptions, 'organization' | 'logo'>): RawResponse {
  const cfg = ctx.kernel.config;
  const logo = cfg.string('organization-logo');
  return {
    status,
    headers: MFA_HTML_HEADERS,
    body: renderMfaPage({ ...o, organization: cfg.string('organization-name', 'Latchkey'), ...(logo ? { logo } : {}) }),
  };
}

const seeOther = (location: string): RawResponse => ({
  status: 303,
  headers: { location, 'cache-control': 'no-store' },
});

/** Runs one step of a form; a refusal shows the screen again with its message. */
async function step(
  req: RawRequest,
  ctx: RequestContext,
  run: (returnTo: string, screens: MfaScreen[]) => Promise<RawResponse>,
): Promise<RawResponse> {
  const returnTo = safeReturn(field(req.body, 'return_to'));
  const screens = screensFrom(field(req.body, 's'));
  try {
    return await run(returnTo, screens);
  } catch (err) {
    if (err instanceof ServiceError && err.status.http < 500) {
      // The pending sign-in is over (expired, spent): start again from the login.
      if (err.code === 'unauthenticated' && !ctx.cookie('mfa'))
        return seeOther(`/app?${new URLSearchParams({ return_to: returnTo })}`);
      return screen(ctx, err.status.http, { returnTo, screens, error: err.message });
    }
    throw err;
  }
}

/** The JSON endpoints behind the passkey buttons: `{location}` to go on, or the error envelope. */
async function json(ctx: RequestContext, run: () => Promise<Record<string, unknown>>): Promise<RawResponse> {
  try {
    return { status: 200, headers: { 'cache-control': 'no-store' }, body: await run() };
  } catch (err) {
    if (err instanceof ServiceError && err.status.http < 500)
      return { status: err.status.http, body: { code: err.code, message: err.message } };
    throw err;
  }
}

const invoke = (ctx: RequestContext, op: string, input: Record<string, unknown>) =>
  ctx.kernel.invoke(op, ctx, input) as Promise<Record<string, unknown>>;

export const mfaPageRoutes: RawRoute[] = [
  {
    method: 'GET',
    path: '/app/mfa',
    handler: async (req, ctx) => {
      const returnTo = safeReturn(req.query.return_to);
      if (!ctx.cookie('mfa')) return seeOther(`/app?${new URLSearchParams({ return_to: returnTo })}`);
      return screen(ctx, 200, { returnTo, screens: screensFrom(req.query.s) });
    },
  },
  {
    method: 'POST',
    path: '/app/mfa/verify',
    form: true,
    handler: (req, ctx) =>
      step(req, ctx, async (returnTo) => {
        await invoke(ctx, 'verify_otp', {
          otp: field(req.body, 'otp') ?? '',
          ...(field(req.body, 'is_totp') === 'true' ? { is_totp: true } : {}),
        });
        return seeOther(returnTo);
      }),
  },
  {
    method: 'POST',
    path: '/app/mfa/resend',
    form: true,
    handler: (req, ctx) =>
      step(req, ctx, async (returnTo, screens) => {
        await invoke(ctx, 'resend_otp', {});
        return screen(ctx, 200, { returnTo, screens, notice: 'A new code is on its way.' });
      }),
  },
  {
    method: 'POST',
    path: '/app/mfa/totp-setup',
    form: true,
    handler: (req, ctx) =>
      step(req, ctx, async (returnTo, screens) => {
        const r = await invoke(ctx, 'totp_mfa_setup', {});
        return screen(ctx, 200, {
          returnTo,
          screens,
          totpSetup: {
            image: String(r.authenticator_scanner_image),
            secret: String(r.authenticator_secret),
            recoveryCodes: (r.authenticator_recovery_codes as string[] | undefined) ?? [],
          },
        });
      }),
  },
  ...(['email', 'sms'] as const).map((channel): RawRoute => ({
    method: 'POST',
    path: `/app/mfa/${channel}-setup`,
    form: true,
    handler: (req, ctx) =>
      step(req, ctx, async (returnTo) => {
        await invoke(ctx, `${channel}_otp_mfa_setup`, {});
        return screen(ctx, 200, { returnTo, screens: [channel], notice: 'A code is on its way.' });
      }),
  })),
  {
    method: 'POST',
    path: '/app/mfa/skip',
    form: true,
    handler: (req, ctx) =>
      step(req, ctx, async (returnTo) => {
        await invoke(ctx, 'skip_mfa_setup', {});
        return seeOther(returnTo);
      }),
  },
  {
    method: 'GET',
    path: '/app/passkey.js',
    handler: async () => ({
      status: 200,
      headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' },
      body: PASSKEY_SCRIPT,
    }),
  },
  {
    method: 'POST',
    path: '/app/passkey/registration-options',
    handler: (_req, ctx) => json(ctx, () => invoke(ctx, 'webauthn_registration_options', {})),
  },
  {
    method: 'POST',
    path: '/app/passkey/registration',
    handler: (req, ctx) =>
      json(ctx, async () => {
        const r = await invoke(ctx, 'webauthn_registration_verify', {
          credential: field(req.body, 'credential') ?? '',
          name: 'Passkey',
        });
        // With tokens the withheld sign-in is done; without, a signed-in user added one.
        return { location: r.access_token ? safeReturn(field(req.body, 'return_to')) : '/app?passkey=added' };
      }),
  },
  {
    method: 'POST',
    path: '/app/passkey/login-options',
    handler: (req, ctx) => {
      const email = field(req.body, 'email');
      return json(ctx, () => invoke(ctx, 'webauthn_login_options', email ? { email } : {}));
    },
  },
  {
    method: 'POST',
    path: '/app/passkey/login',
    handler: (req, ctx) =>
      json(ctx, async () => {
        const returnTo = safeReturn(field(req.body, 'return_to'));
        const r = (await invoke(ctx, 'webauthn_login_verify', {
          credential: field(req.body, 'credential') ?? '',
        })) as WithheldAuth;
        return { location: r.access_token ? returnTo : mfaLocation(ctx, r, returnTo) };
      }),
  },
];
