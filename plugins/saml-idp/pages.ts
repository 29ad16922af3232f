/** The pages the IdP answers a browser with: a refusal, and the auto-posting form of the HTTP-POST binding. */
import type { RawResponse } from '../../core/plugin.js';

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const HTML = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };

export function errorPage(status: number, error: string, description: string): RawResponse {
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Single sign-on error</title></head><body>` +
    `<h1>Single sign-on error</h1><p><strong>${esc(error)}</strong>: ${esc(description)}</p>` +
    `<p>Go back to the application and start the sign-in again.</p></body></html>`;
  return { status, headers: { ...HTML, 'content-security-policy': "default-src 'none'" }, body };
}

/**
 * The Response delivered by the browser to the service provider's ACS (SAML Bindings §3.5.4): a
 * form that posts itself on load, with a button where scripts do not run.
 */
export function postForm(action: string, fields: Record<string, string>): RawResponse {
  const inputs = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing in</title></head>` +
    `<body onload="document.forms[0].submit()"><form method="post" action="${esc(action)}">${inputs}` +
    `<noscript><button type="submit">Continue</button></noscript></form></body></html>`;
  return {
    status: 200,
    headers: { ...HTML, 'content-security-policy': "default-src 'none'; script-src 'unsafe-inline'; form-action *" },
    body,
  };
}
