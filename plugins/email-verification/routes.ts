/**
 * `GET /verify_email?token=…&redirect_uri=…&state=…` (an operational endpoint beside the OAuth
 * ones): the mailed link. It redeems the token as `verify_email` does (cookies set), then
 * sends the browser to the redirect target with the tokens and `state` in the query, as
 * authorizer's clients read them; with no allowed target it answers the AuthResponse as JSON, or
 * the hosted page's landing when `--enable-login-page` is on. A bad token goes to the target with
 * `error` and `error_description`, or is a 400 in the spec's envelope.
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { RawResponse, RawRoute } from '../../core/plugin.js';
import { redirectAllowed, withQuery } from '../email/index.js';
import { redeemToken } from './verify.js';

const NO_STORE = { 'cache-control': 'no-store' };

const single = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The hosted page's landing for links (plugins/login-page account-forms.ts). */
const HOSTED_LANDING = '/app/verified';

/**
 * Where the browser goes: the first candidate the built-in client may redirect to, else the
 * hosted landing when `--enable-login-page` is on (`hosted`: it is told no tokens in its URL,
 * the session cookie is enough there), else nowhere (the answer is JSON).
 */
async function target(
  ctx: RequestContext,
  ...candidates: (string | null | undefined)[]
): Promise<{ url: string; hosted: boolean } | undefined> {
  for (const c of candidates) if (c && (await redirectAllowed(ctx, c))) return { url: c, hosted: false };
  if (ctx.kernel.config.bool('enable-login-page')) {
    return { url: `${ctx.kernel.config.string('url', '').replace(/\/+$/, '')}${HOSTED_LANDING}`, hosted: true };
  }
  return undefined;
}

const error = (err: ServiceError): RawResponse => ({
  status: err.status.http,
  headers: NO_STORE,
  body: { code: err.code, message: err.message },
});

export const verificationRoutes: RawRoute[] = [
  {
    method: 'GET',
    path: '/verify_email',
    handler: async (req, ctx) => {
      // A parameter given twice arrives as a list: it is not a token, a target or a state.
      const token = single(req.query.token) ?? '';
      const asked = single(req.query.redirect_uri);
      const state = single(req.query.state);
      if (token.length === 0 || token.length > 256)
        return error(new ServiceError('invalid_argument', 'invalid token: required, at most 256 characters'));
      let redeemed;
      try {
        redeemed = await redeemToken(ctx, token);
      } catch (err) {
        if (!(err instanceof ServiceError) || err.status.http >= 500) throw err;
        const to = await target(ctx, asked);
        if (!to) return error(err);
        const location = withQuery(to.url, {
          error: err.code === 'invalid_argument' ? 'invalid_token' : err.code,
          error_description: err.message,
          state,
        });
        return { status: 303, headers: { ...NO_STORE, location } };
      }
      const { result } = redeemed;
      const to = await target(ctx, asked, redeemed.redirectUri);
      if (!to) return { status: 200, headers: NO_STORE, body: result };
      const location = withQuery(to.url, {
        ...(result.access_token && !to.hosted
          ? {
              access_token: result.access_token,
              token_type: 'bearer',
              expires_in: String(result.expires_in ?? ''),
              id_token: result.id_token,
              ...(result.refresh_token ? { refresh_token: result.refresh_token } : {}),
            }
          : { message: result.message }),
        state: state ?? redeemed.state ?? undefined,
      });
      return { status: 303, headers: { ...NO_STORE, location } };
    },
  },
];
