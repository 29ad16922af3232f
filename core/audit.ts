/**
 * Audit declarations (docs/audit.md): an operation names the audited action it performs with an
 * `audit` field, a plugin names the domain events that are audited actions with `auditEvents`.
 * The kernel turns a finished call of a declared operation into an `AuditRecord` and hands it to
 * the `audit.record` hook, awaited before the call answers; whichever plugin keeps the log
 * (plugins/audit) subscribes. Nothing here knows that plugin.
 */
import type { Principal, RequestContext } from './context.js';
import type { ServiceError } from './errors.js';

/** Who acted: the principal's kind (`admin`, `user`, `service`, ...) and id, or `anonymous`. */
export interface AuditActor {
  kind: string;
  id: string;
  email?: string;
}

/** One finished call, as the declaration's functions see it. */
export interface AuditedCall<I = unknown, O = unknown> {
  readonly ctx: RequestContext;
  readonly input: I;
  /** The answer; undefined when the call failed. */
  readonly output: O | undefined;
  /** The refusal; undefined when the call succeeded. */
  readonly error: ServiceError | undefined;
  /**
   * Who called: the principal of the access check, or for a public operation the session the
   * caller presented, if any (such handlers authenticate themselves, after the access check).
   */
  readonly caller: Principal | undefined;
}

export interface AuditDeclaration<I = unknown, O = unknown> {
  /** `<resource>.<verb>`, e.g. `client.create`, `user.login` (docs/audit.md lists them). */
  action: string;
  /** The kind of thing acted on, e.g. `client`, `user`, `fga_store`. */
  resourceType: string;
  /** The id of the thing acted on, from the input or the answer ('' for a whole store or a list). */
  resourceId?: (call: AuditedCall<I, O>) => string | undefined;
  /** Facts worth keeping (counts, methods, outcome details). Never a secret, token or password. */
  metadata?: (call: AuditedCall<I, O>) => Record<string, unknown> | undefined;
  /** Who acted, when not the caller's principal (a login: the user it signed in). */
  actor?: (call: AuditedCall<I, O>) => AuditActor | undefined;
  /** Also record refused calls (a failed login is a security event). Default: successful calls only. */
  failures?: boolean;
  /** Record only the calls this answers true for (a profile update that changes the password). */
  when?: (call: AuditedCall<I, O>) => boolean;
  /**
   * The handler writes its own record through the audit service (FGA reset writes it before it
   * deletes anything); the kernel then writes none. The declaration still names
   * the action and resource, which the handler must use.
   */
  recordedByHandler?: boolean;
}

/** A domain event that is an audited action (a plugin's `auditEvents`). */
export interface AuditEventDeclaration {
  action: string;
  resourceType: string;
  resourceId: (payload: Record<string, unknown>) => string;
  /** Facts from the payload; never a secret. The actor, ip and user agent are read by the log itself. */
  metadata?: (payload: Record<string, unknown>) => Record<string, unknown> | undefined;
}

/** What the log keeps of one audited action. */
export interface AuditRecord {
  action: string;
  resourceType: string;
  resourceId: string;
  actor: AuditActor;
  /** The client address after trusted-proxy resolution (the transport's `ctx.ip`). */
  ip: string | undefined;
  userAgent: string | undefined;
  outcome: 'success' | 'failure';
  /** The refusal's code for a failure (`unauthenticated`, `invalid_argument`, ...). */
  errorCode?: string;
  /** The operation that performed it, when one did. */
  operation?: string;
  metadata?: Record<string, unknown>;
  /** Milliseconds since the epoch. */
  at: number;
}

/** The caller as an audit actor: its kind and the most specific id it has. */
export function actorOfPrincipal(principal: Principal | undefined): AuditActor {
  if (!principal) return { kind: 'anonymous', id: 'anonymous' };
  const id = principal.userId ?? principal.clientId ?? principal.subject;
  return { kind: principal.kind, id };
}

/** The record of a finished call of an operation declaring `audit`; undefined when it is not recorded. */
export function auditRecordOf(
  operation: string,
  declaration: AuditDeclaration,
  call: AuditedCall,
): AuditRecord | undefined {
  if (declaration.recordedByHandler) return undefined;
  if (call.error && !declaration.failures) return undefined;
  if (declaration.when && !declaration.when(call)) return undefined;
  const metadata = declaration.metadata?.(call);
  return {
    action: declaration.action,
    resourceType: declaration.resourceType,
    resourceId: declaration.resourceId?.(call) ?? '',
    actor: declaration.actor?.(call) ?? actorOfPrincipal(call.caller),
    ip: call.ctx.ip,
    userAgent: call.ctx.header('user-agent'),
    outcome: call.error ? 'failure' : 'success',
    ...(call.error ? { errorCode: call.error.code } : {}),
    operation,
    ...(metadata ? { metadata } : {}),
    at: Date.now(),
  };
}

/** An audited action that no operation performs (a raw route, a sign-in), as its code reports it. */
export interface AuditedAction {
  action: string;
  resourceType: string;
  resourceId?: string;
  /** Default: the request's principal (`anonymous` without one). */
  actor?: AuditActor;
  /** Default `success`. */
  outcome?: 'success' | 'failure';
  errorCode?: string;
  /** Never a secret, token or password (the log drops fields named like one as well). */
  metadata?: Record<string, unknown>;
}

/**
 * Records an action through the `audit.record` hook with the request's client address (after
 * trusted-proxy resolution) and user agent, awaited like an operation's record. A record that
 * cannot be written is logged with its content and never fails the request: the action has
 * happened. Without an audit plugin it costs nothing.
 */
export async function recordAudit(ctx: RequestContext, entry: AuditedAction): Promise<void> {
  const { hooks, logger } = ctx.kernel;
  if (!hooks.has('audit.record')) return;
  const record: AuditRecord = {
    action: entry.action,
    resourceType: entry.resourceType,
    resourceId: entry.resourceId ?? '',
    actor: entry.actor ?? actorOfPrincipal(ctx.principal),
    ip: ctx.ip,
    userAgent: ctx.header('user-agent'),
    outcome: entry.outcome ?? 'success',
    ...(entry.errorCode ? { errorCode: entry.errorCode } : {}),
    ...(entry.metadata ? { metadata: entry.metadata } : {}),
    at: Date.now(),
  };
  try {
    await hooks.run('audit.record', record);
  } catch (err) {
    logger.error({ err, audit: record }, 'audit: the record could not be written');
  }
}

/** Where the kernel notes the audited action of the operation a request runs (`auditedByOperation`). */
const OPERATION_ACTION = 'audit.operation-action';

/** Called by the kernel before an operation with an `audit` declaration runs its handler. */
export function noteAuditedOperation(ctx: RequestContext, action: string): void {
  ctx.locals.set(OPERATION_ACTION, action);
}

/**
 * Whether an operation this request runs records `action` itself (its declaration names it): a
 * shared step (the sign-in service) then leaves the record to it instead of writing a second one.
 */
export function auditedByOperation(ctx: RequestContext, action: string): boolean {
  return ctx.locals.get(OPERATION_ACTION) === action;
}
