/**
 * Sign-ins in the audit log (docs/audit.md): every completed first factor is a `user.login` record
 * of the user it signs in, whatever path it took (social and organization SSO callbacks, SAML ACS,
 * magic links and verification links, the hosted page, signup), written where every path ends:
 * the sign-in service's `complete`. A refusal inside it (a gate, a session that cannot start) is
 * recorded as a failure; paths that refuse before reaching it report theirs with
 * `recordLoginRefusal`. An operation whose own declaration records `user.login` (`login`,
 * `webauthn_login_verify`) keeps its record and none is added here.
 */
import { auditedByOperation, recordAudit } from '../../core/audit.js';
import type { RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import type { AuthResult, SignInService } from './types.js';

export const LOGIN_ACTION = 'user.login';

/** Errors already recorded as a refusal: a path that sees one again does not record it twice. */
const recorded = new WeakSet<object>();

/** The `complete` step, recording each sign-in and each refusal inside it. */
export function auditedSignIns(service: SignInService): SignInService {
  const complete = service.complete.bind(service);
  return {
    ...service,
    async complete(ctx, attempt) {
      const own = auditedByOperation(ctx, LOGIN_ACTION);
      let result: AuthResult;
      try {
        result = await complete(ctx, attempt);
      } catch (err) {
        if (!own) await recordLoginRefusal(ctx, { method: attempt.method, user: attempt.user, error: err });
        throw err;
      }
      if (!own) {
        const { user } = attempt;
        await recordAudit(ctx, {
          action: LOGIN_ACTION,
          resourceType: 'user',
          resourceId: user.id,
          actor: { kind: 'user', id: user.id, ...(user.email ? { email: user.email } : {}) },
          // A sign-in whose session a gate withheld (MFA) is not completed; the step that
          // finishes it has its own record (`user.mfa_verify`).
          metadata: { method: attempt.method, amr: attempt.amr, ...(result.access_token ? {} : { completed: false }) },
        });
      }
      return result;
    },
  };
}

export interface LoginRefusal {
  /** The path's `auth_recipe`: `google`, `magic_link_login`, an SSO provider name, ... */
  method: string;
  /** The user when the refusal came after they were known. */
  user?: { id: string; email?: string | null } | undefined;
  /** The refusal: its code is recorded (a ServiceError's, or `internal`); never its secrets. */
  error?: unknown;
  /** A short code of the refusal when there is no error object (`invalid_state`, `access_denied`). */
  reason?: string;
}

/** Records a refused login (outcome `failure`) once per error, with the request's address and user agent. */
export async function recordLoginRefusal(ctx: RequestContext, refusal: LoginRefusal): Promise<void> {
  const { error, user } = refusal;
  if (error !== null && typeof error === 'object') {
    if (recorded.has(error)) return;
    recorded.add(error);
  }
  const code =
    error instanceof ServiceError ? error.code : (refusal.reason ?? (error !== undefined ? 'internal' : 'refused'));
  await recordAudit(ctx, {
    action: LOGIN_ACTION,
    resourceType: 'user',
    resourceId: user?.id ?? '',
    actor: user ? { kind: 'user', id: user.id, ...(user.email ? { email: user.email } : {}) } : undefined,
    outcome: 'failure',
    errorCode: code,
    metadata: { method: refusal.method, ...(refusal.reason ? { reason: refusal.reason } : {}) },
  });
}
