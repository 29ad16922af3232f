/**
 * /oauth/revoke (RFC 7009; the body names `refresh_token`, the answer is `{message}`). The token may come
 * as `token` (RFC 7009 §2.1) or `refresh_token`. Unknown and already revoked tokens
 * answer 200 (§2.2): the client cannot learn anything, and revocation is idempotent. A client
 * that presents a secret must present the right one.
 */
import { recordAudit } from '../../core/audit.js';
import type { RequestContext } from '../../core/context.js';
import type { RawResponse, RawRoute } from '../../core/plugin.js';
import type { SessionRecord } from '../sessions/index.js';
import { identifyClient } from './client-auth.js';
import { NO_STORE, OAuthError, invalidRequest, oauthErrorResponse } from './errors.js';
import { readParams } from './params.js';

const OK = { status: 200, headers: { ...NO_STORE }, body: { message: 'token revoked successfully' } };

const handler: RawRoute['handler'] = async (req, ctx) => {
  try {
    const params = readParams(req.body ?? req.query);
    const token = params.token ?? params.refresh_token;
    if (!token) throw invalidRequest('token (or refresh_token) is required');
    const hint = params.token_type_hint;
    if (hint && hint !== 'refresh_token' && hint !== 'access_token')
      throw new OAuthError('unsupported_token_type', `token_type_hint ${hint} is not supported`);
    const callerClient =
      params.client_id || params.client_assertion || ctx.header('authorization')?.startsWith('Basic ')
        ? (await identifyClient(ctx, params)).client
        : null;
    const kernel = ctx.kernel;
    const tokens = kernel.service('tokens');
    // RFC 7009 §2.1: a hint only orders the search; a token not found under it is looked for as
    // the other type (a refresh token sent with the access_token hint is revoked too).
    const refresh = await tokens.validate(token, 'refresh_token');
    if (refresh) {
      if (callerClient && (refresh.session.clientId ?? kernel.config.string('client-id')) !== callerClient.clientId)
        return audited(ctx, callerClient?.clientId, 'refresh_token', refresh.session, 'other_client');
      await tokens.revokeRefreshToken(token);
      return audited(ctx, callerClient?.clientId, 'refresh_token', refresh.session);
    }
    // A client that identified itself may revoke its own tokens whatever their audience (a
    // revocation must not silently do nothing). Without a client, only a token
    // that is a credential here: one bound to another API must not let that API end the user's
    // session (RFC 7009 §2.1).
    const access = await tokens.verifyAccessToken(token, { audiences: callerClient ? 'any' : 'own' });
    if (access) {
      if (callerClient && (access.session.clientId ?? kernel.config.string('client-id')) !== callerClient.clientId)
        return audited(ctx, callerClient?.clientId, 'access_token', access.session, 'other_client');
      // Access tokens are stateful: ending the session they name revokes them.
      await kernel.service('sessions').revoke(access.userId, access.session.id);
      return audited(ctx, callerClient?.clientId, 'access_token', access.session);
    }
    await tokens.revokeRefreshToken(token);
    return audited(ctx, callerClient?.clientId, hint ?? 'refresh_token', undefined, 'unknown_token');
  } catch (err) {
    if (err instanceof OAuthError) {
      await recordAudit(ctx, {
        action: REVOKE_ACTION,
        resourceType: 'token',
        outcome: 'failure',
        errorCode: err.error,
        metadata: { endpoint: '/oauth/revoke' },
      });
      return oauthErrorResponse(err, /^Basic\s/i.test(ctx.header('authorization') ?? ''));
    }
    throw err;
  }
};

const REVOKE_ACTION = 'token.revoke';

/**
 * The audit record of a revocation (docs/audit.md `token.revoke`): the session the token belongs
 * to (never the token), the client that asked when it identified itself, else the token's user as
 * the actor. `skipped`: answered 200 without revoking anything (RFC 7009 §2.2), and why.
 */
async function audited(
  ctx: RequestContext,
  clientId: string | undefined,
  tokenType: string,
  session: SessionRecord | undefined,
  skipped?: 'other_client' | 'unknown_token',
): Promise<RawResponse> {
  await recordAudit(ctx, {
    action: REVOKE_ACTION,
    resourceType: 'session',
    resourceId: session?.id ?? '',
    actor: clientId
      ? { kind: 'client', id: clientId }
      : session
        ? { kind: 'user', id: session.userId }
        : { kind: 'anonymous', id: 'anonymous' },
    metadata: {
      endpoint: '/oauth/revoke',
      // Not named `token_type`: the log drops fields named like a secret.
      type: tokenType,
      ...(session ? { user_id: session.userId } : {}),
      ...(skipped ? { revoked: false, reason: skipped } : {}),
    },
  });
  return OK;
}

export const revokeRoute: RawRoute = {
  method: 'POST',
  path: '/oauth/revoke',
  csrfExempt: true,
  form: true,
  errors: 'oauth',
  handler,
};
