/**
 * How a social login answers: a redirect to the validated target (tokens or an error in the
 * fragment by default, RFC 9700 §2.1.2: not in a query that logs and Referer headers keep), or an
 * error page when no target can be trusted (RFC 6749 §4.1.2.1).
 */
import type { RawResponse } from '../../core/plugin.js';
import type { LoginRequest } from './types.js';

const esc = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export function redirectWith(
  target: string,
  mode: LoginRequest['responseMode'] | 'none',
  params: Record<string, string>,
): RawResponse {
  const url = new URL(target);
  if (mode === 'query') for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  else if (mode === 'fragment') url.hash = new URLSearchParams(params).toString();
  return { status: 302, headers: { location: url.toString(), 'cache-control': 'no-store' } };
}

export function errorPage(status: number, error: string, description: string): RawResponse {
  const body =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in error</title></head><body>` +
    `<h1>Sign-in error</h1><p><strong>${esc(error)}</strong>: ${esc(description)}</p>` +
    `<p>Go back to the application and start the sign-in again.</p></body></html>`;
  return {
    status,
    headers: {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'content-security-policy': "default-src 'none'",
    },
    body,
  };
}

/** Thrown while a login request is checked: the answer to send instead. */
export class SocialLoginFailure extends Error {
  constructor(readonly response: RawResponse) {
    super('social login refused');
  }
}
