/**
 * The social service: the provider registry the hosted page reads, and the end of every social
 * login (accounts.ts, then the sign-in service, then the redirect back to the application).
 */
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { RawResponse } from '../../core/plugin.js';
import { loginEvent, recordLoginRefusal, type AuthResult } from '../sign-in/index.js';
import { AccountRefusal, resolveAccount } from './accounts.js';
import type { SocialIdentities } from './identities.js';
import { parseLoginRequest } from './login-request.js';
import { errorPage, redirectWith, SocialLoginFailure } from './responses.js';
import type { LoginRequest, SocialProviderInfo, SocialService } from './types.js';

/** RFC 8176 has no value for a federated login; `fed` is the one Microsoft Entra and others use. */
const FEDERATED_AMR = ['fed'];

/** The withheld response's flags (a sign-in gate such as MFA answered instead of tokens). */
const GATE_FLAGS = [
  'should_show_email_otp_screen',
  'should_show_mobile_otp_screen',
  'should_show_totp_screen',
  'should_offer_webauthn_mfa_verify',
  'should_offer_webauthn_mfa_setup',
  'should_offer_email_otp_mfa_setup',
  'should_offer_sms_otp_mfa_setup',
] as const;

function tokenParams(result: AuthResult, state: string): Record<string, string> {
  if (!result.access_token) {
    const out: Record<string, string> = { state, message: result.message };
    for (const f of GATE_FLAGS) if (result[f]) out[f] = 'true';
    return out;
  }
  return {
    access_token: result.access_token,
    token_type: 'Bearer',
    expires_in: String(result.expires_in ?? 0),
    ...(result.id_token ? { id_token: result.id_token } : {}),
    ...(result.refresh_token ? { refresh_token: result.refresh_token } : {}),
    state,
  };
}

/**
 * A target on the service's own origin (the hosted page, or the /authorize request that sent the
 * user there) reads the session cookie just set: no token travels in its URL, and /authorize then
 * answers with a code or tokens as its own request asked.
 */
function ownOrigin(ctx: RequestContext, target: string): boolean {
  const url = ctx.kernel.config.string('url');
  return url !== undefined && new URL(target).origin === new URL(url).origin;
}

export function createSocialService(ids: SocialIdentities): SocialService {
  const registered = new Map<string, SocialProviderInfo>();
  const fail = (request: LoginRequest, error: string, description: string): RawResponse =>
    redirectWith(request.redirectUri, request.responseMode, {
      error,
      error_description: description,
      state: request.state,
    });

  return {
    register(provider) {
      if (registered.has(provider.name)) throw new Error(`social provider "${provider.name}" is registered twice`);
      registered.set(provider.name, { ...provider });
    },
    providers: () => [...registered.values()],
    parseLoginRequest,
    async loginRequestOf(ctx, query) {
      try {
        return { request: await parseLoginRequest(ctx, query) };
      } catch (err) {
        if (err instanceof SocialLoginFailure) return { refusal: err.response };
        throw err;
      }
    },
    fail,
    errorPage,
    async complete(ctx, provider, profile, request, options) {
      let account;
      let result: AuthResult;
      try {
        account = await resolveAccount(ctx, ids, provider, profile, request);
        if (options?.beforeSignIn) await options.beforeSignIn(account.user);
        result = await ctx.kernel.service('sign-in').complete(ctx, {
          user: account.user,
          method: provider,
          roles: account.roles,
          scopes: request.scopes,
          amr: FEDERATED_AMR,
          message: account.created ? 'Signed up successfully.' : 'Logged in successfully',
          // A new account's events were stored with it; a returning user's login with the session.
          ...(account.created ? {} : { within: loginEvent(ctx.kernel.events, provider) }),
        });
      } catch (err) {
        // Audited once: a refusal inside the sign-in service is recorded there already.
        await recordLoginRefusal(ctx, {
          method: provider,
          user: account?.user ?? (err instanceof AccountRefusal ? err.user : undefined),
          error: err,
          ...(err instanceof AccountRefusal ? { reason: err.error } : {}),
        });
        if (err instanceof AccountRefusal) return fail(request, err.error, err.description);
        // A refusal of the user service or a gate (a profile field it will not store, a locked
        // factor) goes back to the application like any other; nothing was written before it.
        if (err instanceof ServiceError && err.status.http < 500) return fail(request, 'access_denied', err.message);
        throw err;
      }
      if (ownOrigin(ctx, request.redirectUri)) {
        // Withheld by a gate: the service's own page is told which screen comes next.
        if (!result.access_token) return redirectWith(request.redirectUri, 'query', tokenParams(result, request.state));
        return redirectWith(request.redirectUri, 'none', {});
      }
      return redirectWith(request.redirectUri, request.responseMode, tokenParams(result, request.state));
    },
  };
}
