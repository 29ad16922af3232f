/**
 * Delivering an authorization response (RFC 6749 §4.1.2 and §4.2.2, OAuth 2.0 Multiple Response
 * Types §2, Form Post Response Mode, and the `web_message` mode: the response posted to the
 * opener window).
 */
import type { RawResponse } from '../../../core/plugin.js';

export type ResponseMode = 'query' | 'fragment' | 'form_post' | 'web_message';

export const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** JSON inside a <script>: `<`, `>` and `&` escaped so the payload cannot close the element. */
const scriptJson = (v: unknown): string =>
  JSON.stringify(v).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

const HTML_HEADERS = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' };

export function deliver(mode: ResponseMode, redirectUri: string, params: Record<string, string>): RawResponse {
  switch (mode) {
    case 'query': {
      const url = new URL(redirectUri);
      for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
      return { status: 302, headers: { location: url.toString(), 'cache-control': 'no-store' } };
    }
    case 'fragment': {
      const url = new URL(redirectUri);
      url.hash = new URLSearchParams(params).toString();
      return { status: 302, headers: { location: url.toString(), 'cache-control': 'no-store' } };
    }
    case 'form_post': {
      const inputs = Object.entries(params)
        .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
        .join('');
      const body =
        `<!doctype html><html><head><meta charset="utf-8"><title>Submitting</title></head>` +
        `<body onload="document.forms[0].submit()"><form method="post" action="${esc(redirectUri)}">${inputs}` +
        `<noscript><button type="submit">Continue</button></noscript></form></body></html>`;
      return {
        status: 200,
        headers: {
          ...HTML_HEADERS,
          'content-security-policy': "default-src 'none'; script-src 'unsafe-inline'; form-action *",
        },
        body,
      };
    }
    case 'web_message': {
      // Posted only to the redirect URI's origin, never "*" (the payload carries credentials).
      const origin = new URL(redirectUri).origin;
      const { state, error, ...rest } = params;
      const message = { type: 'authorization_response', response: { ...rest, state, ...(error ? { error } : {}) } };
      const body =
        `<!doctype html><html><head><meta charset="utf-8"><title>Authorization response</title></head><body><script>` +
        `(function(){var m=${scriptJson(message)};var o=${scriptJson(origin)};` +
        `var t=window.opener||window.parent;if(t&&t!==window){t.postMessage(m,o);}` +
        `if(window.opener){window.close();}})();</script></body></html>`;
      // The SDK loads this page in an iframe of the client's origin: only that origin may frame it.
      return {
        status: 200,
        headers: {
          ...HTML_HEADERS,
          'content-security-policy': `default-src 'none'; script-src 'unsafe-inline'; frame-ancestors ${origin}`,
        },
        body,
      };
    }
  }
}

/** An error the user sees because the redirect URI cannot be trusted (RFC 6749 §4.1.2.1). */
export function errorPage(status: number, error: string, description: string): RawResponse {
  const body =
    `<!doctype html><html><head><meta charset="utf-8"><title>Authorization error</title></head><body>` +
    `<h1>Authorization error</h1><p><strong>${esc(error)}</strong>: ${esc(description)}</p></body></html>`;
  return { status, headers: HTML_HEADERS, body };
}
