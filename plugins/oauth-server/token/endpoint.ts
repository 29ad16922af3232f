/**
 * POST /oauth/token (RFC 6749 §3.2): read the parameters, authenticate the client, dispatch to
 * the grant. `grant_type` defaults to `authorization_code`. Errors are RFC 6749 §5.2
 * bodies; nothing is cached (§5.1).
 */
import type { RequestContext } from '../../../core/context.js';
import type { RawRoute } from '../../../core/plugin.js';
import { identifyClient } from '../client-auth.js';
import { NO_STORE, OAuthError, oauthErrorResponse } from '../errors.js';
import { readParams } from '../params.js';
import type { GrantRegistry } from './grants.js';

/** `grantsOf` finds the grant registry of the kernel serving the request (one per kernel). */
export function tokenRoute(grantsOf: (ctx: RequestContext) => GrantRegistry): RawRoute {
  return {
    method: 'POST',
    path: '/oauth/token',
    csrfExempt: true,
    form: true,
    errors: 'oauth',
    handler: async (req, ctx) => {
      try {
        const params = readParams(req.body);
        const type = params.grant_type ?? 'authorization_code';
        const grant = grantsOf(ctx).get(type);
        if (!grant) throw new OAuthError('unsupported_grant_type', `grant_type ${type} is not supported`);
        const caller = await identifyClient(ctx, params, {
          anonymousIsBuiltIn:
            type === 'refresh_token' || type === 'authorization_code' || grantsOf(ctx).clientOptional(type),
        });
        const body = await grant({ ctx, params, caller });
        return { status: 200, headers: { ...NO_STORE }, body };
      } catch (err) {
        if (err instanceof OAuthError)
          return oauthErrorResponse(err, /^Basic\s/i.test(ctx.header('authorization') ?? ''));
        throw err;
      }
    },
  };
}
