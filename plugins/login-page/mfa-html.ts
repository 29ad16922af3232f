/**
 * The hosted MFA screens (docs/mfa.md): code entry for TOTP, email and SMS codes, passkey
 * sign-in as the second factor, and the setup of a first factor (TOTP with its QR code, email
 * codes, a passkey) with "not now" where the offer may be declined. Server-rendered forms; only
 * the passkey buttons need the script.
 */
import { esc, PAGE_STYLE } from './html.js';

/** What a screen shows, carried between requests in the `s` parameter. */
export type MfaScreen =
  'totp' | 'email' | 'sms' | 'passkey' | 'setup-totp' | 'setup-email' | 'setup-sms' | 'setup-passkey' | 'skip';
export const MFA_SCREENS: readonly MfaScreen[] = [
  'totp',
  'email',
  'sms',
  'passkey',
  'setup-totp',
  'setup-email',
  'setup-sms',
  'setup-passkey',
  'skip',
];

export interface MfaPageOptions {
  organization: string;
  logo?: string;
  returnTo: string;
  screens: readonly MfaScreen[];
  error?: string;
  notice?: string;
  /** The TOTP enrollment view: the QR image, the secret and the recovery codes, shown once. */
  totpSetup?: { image: string; secret: string; recoveryCodes: string[] };
}

export function renderMfaPage(o: MfaPageOptions): string {
  const has = (s: MfaScreen) => o.screens.includes(s);
  const hidden =
    `<input type="hidden" name="return_to" value="${esc(o.returnTo)}">` +
    `<input type="hidden" name="s" value="${esc(o.screens.join(','))}">`;
  const error = o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : '';
  const notice = o.notice ? `<p id="mfa-notice" role="status">${esc(o.notice)}</p>` : '';
  const codeForm = (id: string, label: string, totp: boolean) =>
    `<form method="post" action="/app/mfa/verify">${hidden}${totp ? '<input type="hidden" name="is_totp" value="true">' : ''}` +
    `<label for="${id}">${label}</label><input id="${id}" name="otp" inputmode="numeric" autocomplete="one-time-code" required>` +
    `<button type="submit">Verify</button></form>`;
  const resend = `<form method="post" action="/app/mfa/resend">${hidden}<button type="submit" class="link">Send a new code</button></form>`;
  const parts: string[] = [];
  if (o.totpSetup) {
    const s = o.totpSetup;
    parts.push(
      `<h2>Set up an authenticator app</h2><p>Scan this code with the app, or enter the key by hand.</p>` +
        `<img id="totp-qr" src="${esc(s.image)}" alt="QR code for the authenticator app" width="200" height="200">` +
        `<p>Key: <code id="totp-secret">${esc(s.secret)}</code></p>` +
        `<p>Recovery codes (each works once; keep them safe):</p><ul id="recovery-codes">${s.recoveryCodes.map((c) => `<li><code>${esc(c)}</code></li>`).join('')}</ul>` +
        codeForm('otp-totp', 'Code from the app', true),
    );
  } else {
    if (has('totp')) parts.push(codeForm('otp-totp', 'Code from your authenticator app', true));
    if (has('email')) parts.push(codeForm('otp-email', 'Code sent to your email', false) + resend);
    if (has('sms')) parts.push(codeForm('otp-sms', 'Code sent to your phone', false) + resend);
    if (has('passkey'))
      parts.push(
        `<button type="button" id="passkey-verify" data-return-to="${esc(o.returnTo)}">Use a passkey</button>`,
      );
    const setup: string[] = [];
    if (has('setup-totp'))
      setup.push(
        `<form method="post" action="/app/mfa/totp-setup">${hidden}<button type="submit" id="totp-setup">Use an authenticator app</button></form>`,
      );
    if (has('setup-email'))
      setup.push(
        `<form method="post" action="/app/mfa/email-setup">${hidden}<button type="submit" id="email-setup">Get codes by email</button></form>`,
      );
    if (has('setup-sms'))
      setup.push(
        `<form method="post" action="/app/mfa/sms-setup">${hidden}<button type="submit" id="sms-setup">Get codes by SMS</button></form>`,
      );
    if (has('setup-passkey'))
      setup.push(
        `<button type="button" id="passkey-register" data-return-to="${esc(o.returnTo)}">Set up a passkey</button>`,
      );
    if (setup.length > 0) parts.push(`<h2>Choose a second step for signing in</h2>${setup.join('')}`);
    if (has('skip'))
      parts.push(
        `<form method="post" action="/app/mfa/skip">${hidden}<button type="submit" id="mfa-skip" class="link">Not now</button></form>`,
      );
  }
  const logo = o.logo ? `<img src="${esc(o.logo)}" alt="" height="40">` : '';
  const script = has('passkey') || has('setup-passkey') ? '<script src="/app/passkey.js" defer></script>' : '';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
    `<title>${esc(o.organization)}</title><style>${PAGE_STYLE}</style>${script}</head><body><main>${logo}<p>${esc(o.organization)}</p>` +
    `<h1>Two-step verification</h1>${error}${notice}${parts.join('')}</main></body></html>`
  );
}
