/** Server-rendered pages of the hosted login (plain HTML forms; no JavaScript needed). */
export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export interface PageOptions {
  organization: string;
  logo?: string;
  /** `email-first`: home realm discovery's first step. */
  view: 'login' | 'signup' | 'signed-in' | 'email-first' | 'phone-login' | 'phone-signup';
  returnTo: string;
  error?: string;
  email?: string;
  /** The number a phone form is filled in with again after a refusal. */
  phoneNumber?: string;
  signupEnabled: boolean;
  /** Phone accounts sign up and in with their number and a password (`--enable-mobile-basic-authentication`). */
  phone?: boolean;
  /** Links under the sign-in form to the mail-based forms (account-forms.ts). */
  accountLinks?: { label: string; href: string }[];
  /** One link per enabled social provider (social-links.ts). */
  socialLinks?: { label: string; href: string }[];
  /** Passkeys are on (the webauthn plugin): sign in with one, add one when signed in. */
  passkeys?: boolean;
  /** A status line (e.g. after a passkey was added). */
  notice?: string;
}

const STYLE =
  'body{font-family:system-ui,sans-serif;background:#f5f5f7;margin:0}main{max-width:360px;margin:10vh auto;background:#fff;padding:2rem;border-radius:12px;box-shadow:0 2px 12px #0001}' +
  'label{display:block;margin:.8rem 0 .2rem}input{width:100%;padding:.55rem;box-sizing:border-box;border:1px solid #ccc;border-radius:6px}' +
  'button{margin-top:1.2rem;width:100%;padding:.65rem;border:0;border-radius:6px;background:#1f4fd1;color:#fff;font-size:1rem}.error{color:#b00020}';

/** The pages' style, shared by the MFA screens (mfa-html.ts). */
export const PAGE_STYLE = `${STYLE}button.link{background:none;color:#1f4fd1;margin-top:.4rem}`;

const socialButtons = (o: PageOptions): string =>
  (o.socialLinks ?? [])
    .map(
      (l) =>
        `<p><a class="social" style="display:block;text-align:center;padding:.6rem;border:1px solid #ccc;border-radius:6px;color:#222;text-decoration:none" href="${esc(l.href)}">Continue with ${esc(l.label)}</a></p>`,
    )
    .join('');

export function renderPage(o: PageOptions): string {
  const hidden = `<input type="hidden" name="return_to" value="${esc(o.returnTo)}">`;
  const error = o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : '';
  const q = (view: string, method?: 'phone') =>
    `/app?${new URLSearchParams({ return_to: o.returnTo, ...(view === 'signup' ? { screen_hint: 'signup' } : {}), ...(method ? { method } : {}) })}`;
  const switchTo = (view: 'login' | 'signup', method: 'phone' | undefined, label: string, id: string) =>
    o.phone ? `<p><a id="${id}" href="${esc(q(view, method))}">${label}</a></p>` : '';
  const phoneField = (autocomplete: string) =>
    `<label for="phone_number">Phone number</label><input id="phone_number" name="phone_number" type="tel" autocomplete="${autocomplete}" placeholder="+15551234567" required value="${esc(o.phoneNumber ?? '')}">`;
  const links = (o.accountLinks ?? []).map((l) => `<p><a href="${esc(l.href)}">${esc(l.label)}</a></p>`).join('');
  let body: string;
  if (o.view === 'phone-signup') {
    body =
      `<h1>Create an account</h1>${error}<form method="post" action="/app/signup">${hidden}` +
      phoneField('tel') +
      `<label for="given_name">First name</label><input id="given_name" name="given_name" autocomplete="given-name">` +
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" required>` +
      `<label for="confirm_password">Confirm password</label><input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>` +
      `<button type="submit">Sign up</button></form>` +
      switchTo('signup', undefined, 'Sign up with an email address instead', 'use-email') +
      `<p><a href="${esc(q('login', 'phone'))}">I already have an account</a></p>`;
  } else if (o.view === 'phone-login') {
    body =
      `<h1>Sign in</h1>${error}<form method="post" action="/app/login">${hidden}` +
      phoneField('username') +
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>` +
      `<button type="submit">Sign in</button></form>` +
      switchTo('login', undefined, 'Sign in with an email address instead', 'use-email') +
      links +
      (o.signupEnabled ? `<p><a href="${esc(q('signup', 'phone'))}">Create an account</a></p>` : '');
  } else if (o.view === 'signup') {
    body =
      `<h1>Create an account</h1>${error}<form method="post" action="/app/signup">${hidden}` +
      `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" required value="${esc(o.email ?? '')}">` +
      `<label for="given_name">First name</label><input id="given_name" name="given_name" autocomplete="given-name">` +
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" required>` +
      `<label for="confirm_password">Confirm password</label><input id="confirm_password" name="confirm_password" type="password" autocomplete="new-password" required>` +
      `<button type="submit">Sign up</button></form>${socialButtons(o)}` +
      switchTo('signup', 'phone', 'Sign up with a phone number instead', 'use-phone') +
      `<p><a href="${esc(q('login'))}">I already have an account</a></p>`;
  } else if (o.view === 'email-first') {
    body =
      `<h1>Sign in</h1>${error}<form method="post" action="/app/discover">${hidden}` +
      `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(o.email ?? '')}">` +
      `<button type="submit">Continue</button></form>` +
      `<p><a href="${esc(`/app?${new URLSearchParams({ return_to: o.returnTo, screen_hint: 'password' })}`)}">Sign in with a password</a></p>` +
      switchTo('login', 'phone', 'Sign in with a phone number', 'use-phone');
  } else if (o.view === 'login') {
    body =
      `<h1>Sign in</h1>${error}<form method="post" action="/app/login">${hidden}` +
      `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(o.email ?? '')}">` +
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>` +
      `<button type="submit">Sign in</button></form>` +
      switchTo('login', 'phone', 'Sign in with a phone number instead', 'use-phone') +
      socialButtons(o) +
      (o.passkeys
        ? `<button type="button" id="passkey-login" data-return-to="${esc(o.returnTo)}">Sign in with a passkey</button>`
        : '') +
      links +
      (o.signupEnabled ? `<p><a href="${esc(q('signup'))}">Create an account</a></p>` : '');
  } else {
    body =
      `<h1>You are signed in</h1>${o.notice ? `<p id="notice" role="status">${esc(o.notice)}</p>` : ''}` +
      (o.passkeys ? `<button type="button" id="passkey-register" data-return-to="/app">Add a passkey</button>` : '') +
      `<p><a href="/logout">Sign out</a></p>`;
  }
  const logo = o.logo ? `<img src="${esc(o.logo)}" alt="" height="40">` : '';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(o.organization)}</title><style>${STYLE}</style>${o.passkeys && (o.view === 'login' || o.view === 'signed-in') ? '<script src="/app/passkey.js" defer></script>' : ''}</head><body><main>${logo}<p>${esc(o.organization)}</p>${body}</main></body></html>`;
}
