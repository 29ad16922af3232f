/**
 * FGA operations ("list_permissions", admin `fga/*`; GraphQL names as the wire contract fixes
 * them). Handlers only translate between wire shapes and the `fga` service.
 */
import type { Principal, RequestContext } from '../../core/context.js';
import { ServiceError } from '../../core/errors.js';
import { defineOperation, type Access, type AnyOperation } from '../../core/operations.js';
import { MessageResponse } from '../../core/schema.js';
import type { FgaApi } from './api.js';
import type { Tuple } from './engine/types.js';
import {
  CheckPermissionsInput,
  CheckPermissionsResponse,
  FgaExpandInput,
  FgaExpandResponse,
  FgaListUsersInput,
  FgaListUsersResponse,
  FgaModel,
  FgaReadTuplesInput,
  FgaTuples,
  FgaWriteModelInput,
  FgaWriteTuplesInput,
  ListPermissionsInput,
  ListPermissionsResponse,
} from './schemas.js';
import { LIST_CAP } from './service.js';
import { resolveSubjects } from './subject.js';

/** How far each side of a delegated list_permissions is listed before the two are intersected. */
const DELEGATED_SCAN = 10 * LIST_CAP;

const fga = (ctx: RequestContext): FgaApi => ctx.kernel.service('fga');

/**
 * check_permissions and list_permissions serve both session callers and super-admins (an
 * explicit `user` is honoured for super-admins), so they authenticate here instead of through
 * one access level: session first, unless the call names a `user`, where the admin credentials,
 * when the request carries them too (an admin's browser holds both cookies), are the ones that
 * make it allowed (otherwise the session wins and the call is refused).
 */
const ADMIN_FIRST: readonly Access[] = ['admin', 'session'];
const SESSION_FIRST: readonly Access[] = ['session', 'admin'];

function authenticateCaller(ctx: RequestContext, input: unknown): Promise<void> | undefined {
  const named =
    typeof (input as { user?: unknown } | undefined)?.user === 'string' && (input as { user: string }).user !== '';
  const found = ctx.kernel.authenticate(named ? ADMIN_FIRST : SESSION_FIRST, ctx, input);
  if (found instanceof Promise) return found.then((principal) => admitCaller(ctx, principal));
  admitCaller(ctx, found);
  return undefined;
}

function admitCaller(ctx: RequestContext, principal: Principal | null): void {
  if (!principal) throw new ServiceError('unauthenticated', 'unauthorized');
  ctx.principal = principal;
}

/**
 * The checks of one request for one subject. A module function, not a closure made per request:
 * the tsx loader the server runs under names every named closure when it is created (a
 * defineProperty per request, ~1% of a check_permissions request's server time in a profile).
 */
function askFor(
  service: FgaApi,
  user: string,
  checks: readonly { relation: string; object: string; contextual_tuples?: readonly Tuple[] }[],
): boolean[] {
  return service.check(
    checks.map((c) => ({ user, relation: c.relation, object: c.object, contextualTuples: c.contextual_tuples })),
  );
}

const tuples = (list: readonly Tuple[]): Tuple[] =>
  list.map((t) => ({ user: t.user, relation: t.relation, object: t.object }));

export const fgaOperations: AnyOperation[] = [
  defineOperation({
    name: 'check_permissions',
    kind: 'query',
    access: 'public',
    mcp: true,
    description: 'Batch-evaluates (relation, object) checks for the caller, in order (1 to 100).',
    input: CheckPermissionsInput,
    output: CheckPermissionsResponse,
    handler: async (ctx, input) => {
      const waiting = authenticateCaller(ctx, input);
      if (waiting) await waiting;
      const service = fga(ctx);
      const model = service.currentModel;
      const who = resolveSubjects(ctx, input.user, model);
      const userAnswers = askFor(service, who.user, input.checks);
      const agentAnswers = who.agent ? askFor(service, who.agent, input.checks) : null;
      return {
        results: input.checks.map((c, i) => ({
          relation: c.relation,
          object: c.object,
          allowed: !who.denyAll && userAnswers[i] && (agentAnswers ? agentAnswers[i] : true),
        })),
      };
    },
  }),
  defineOperation({
    name: 'list_permissions',
    kind: 'query',
    access: 'public',
    mcp: true,
    description: 'Lists the objects and relations the caller holds (capped at 1000, `truncated` when more exist).',
    // list_permissions(params: ListPermissionsInput!).
    graphql: { required: true },
    input: ListPermissionsInput,
    output: ListPermissionsResponse,
    handler: async (ctx, input) => {
      const waiting = authenticateCaller(ctx, input);
      if (waiting) await waiting;
      const service = fga(ctx);
      const who = resolveSubjects(ctx, input.user, service.currentModel);
      if (who.denyAll) return { objects: [], permissions: [], truncated: false };
      const filter = { relation: input.relation, objectType: input.object_type };
      if (!who.agent) return service.listPermissions(who.user, filter);
      // Delegation: only what both the user and the agent hold. Both sides are listed up to
      // DELEGATED_SCAN, then the shared part is capped (cutting the user's side at 1000 first
      // would never find what both hold beyond it, and the agent's side needs a bound too).
      const mine = service.listPermissions(who.user, filter, DELEGATED_SCAN);
      const theirs = service.listPermissions(who.agent, filter, DELEGATED_SCAN);
      const agents = new Set(theirs.permissions.map((p) => `${p.object}#${p.relation}`));
      const shared = mine.permissions.filter((p) => agents.has(`${p.object}#${p.relation}`));
      const permissions = shared.slice(0, LIST_CAP);
      return {
        objects: [...new Set(permissions.map((p) => p.object))],
        permissions,
        truncated: shared.length > LIST_CAP || mine.truncated || theirs.truncated,
      };
    },
  }),
  defineOperation({
    name: '_fga_get_model',
    kind: 'query',
    access: 'admin',
    description: 'The authorization model in force; an empty store answers an empty model.',
    rest: { method: 'GET', path: 'admin/fga/model' },
    output: FgaModel,
    audit: { action: 'fga.model_read', resourceType: 'fga_model', resourceId: ({ output }) => output?.id },
    handler: async (ctx) => fga(ctx).getModel(),
  }),
  defineOperation({
    name: '_fga_write_model',
    kind: 'mutation',
    access: 'admin',
    description: 'Installs a new model version (OpenFGA DSL, schema 1.1).',
    rest: { method: 'POST', path: 'admin/fga/model' },
    input: FgaWriteModelInput,
    output: FgaModel,
    audit: { action: 'fga.model_write', resourceType: 'fga_model', resourceId: ({ output }) => output?.id },
    handler: async (ctx, input) => fga(ctx).installModel(input.dsl),
  }),
  defineOperation({
    name: '_fga_write_tuples',
    kind: 'mutation',
    access: 'admin',
    description: 'Writes relationship tuples, validated against the latest model; all or nothing.',
    rest: { method: 'POST', path: 'admin/fga/tuples' },
    input: FgaWriteTuplesInput,
    output: MessageResponse,
    audit: {
      action: 'fga.tuples_write',
      resourceType: 'fga_tuple',
      metadata: ({ input }) => ({ count: input.tuples.length }),
    },
    handler: async (ctx, input) => {
      await fga(ctx).writeTuples(tuples(input.tuples));
      return { message: `${input.tuples.length} tuple(s) written` };
    },
  }),
  defineOperation({
    name: '_fga_delete_tuples',
    kind: 'mutation',
    access: 'admin',
    description: 'Deletes relationship tuples; all or nothing.',
    rest: { method: 'POST', path: 'admin/fga/tuples/delete' },
    input: FgaWriteTuplesInput,
    output: MessageResponse,
    audit: {
      action: 'fga.tuples_delete',
      resourceType: 'fga_tuple',
      metadata: ({ input }) => ({ count: input.tuples.length }),
    },
    handler: async (ctx, input) => {
      await fga(ctx).deleteTuples(tuples(input.tuples));
      return { message: `${input.tuples.length} tuple(s) deleted` };
    },
  }),
  defineOperation({
    name: '_fga_read_tuples',
    kind: 'query',
    access: 'admin',
    description: 'Reads stored tuples by user, relation and object (`type:` for a whole type), a page at a time.',
    rest: { method: 'POST', path: 'admin/fga/tuples/read' },
    input: FgaReadTuplesInput,
    output: FgaTuples,
    audit: { action: 'fga.tuples_read', resourceType: 'fga_tuple' },
    handler: async (ctx, input) => {
      const page = await fga(ctx).readTuples(
        { user: input.user, relation: input.relation, object: input.object },
        input.page_size ?? 50,
        input.continuation_token,
      );
      return { tuples: page.tuples, continuation_token: page.continuationToken };
    },
  }),
  defineOperation({
    name: '_fga_list_users',
    kind: 'query',
    access: 'admin',
    description: 'Users of one type (`user`, or a userset type such as `group#member`) with a relation on an object.',
    rest: { method: 'POST', path: 'admin/fga/list_users' },
    input: FgaListUsersInput,
    output: FgaListUsersResponse,
    audit: { action: 'fga.users_list', resourceType: 'fga_object', resourceId: ({ input }) => input.object },
    handler: async (ctx, input) => ({ users: fga(ctx).listUsers(input.object, input.relation, input.user_type) }),
  }),
  defineOperation({
    name: '_fga_expand',
    kind: 'query',
    access: 'admin',
    description: 'One level of the userset tree of a relation on an object, as JSON text.',
    rest: { method: 'POST', path: 'admin/fga/expand' },
    input: FgaExpandInput,
    output: FgaExpandResponse,
    audit: { action: 'fga.expand', resourceType: 'fga_object', resourceId: ({ input }) => input.object },
    handler: async (ctx, input) => ({ tree: fga(ctx).expand(input.object, input.relation) }),
  }),
  defineOperation({
    name: '_fga_reset',
    kind: 'mutation',
    access: 'admin',
    description: 'Deletes the whole FGA store (every model version); refused while any tuple exists. Audited.',
    rest: { method: 'POST', path: 'admin/fga/reset' },
    output: MessageResponse,
    audit: { action: 'fga.reset', resourceType: 'fga_store', recordedByHandler: true },
    handler: async (ctx) => {
      const payload = {
        actor: ctx.principal?.subject ?? 'admin',
        actor_kind: ctx.principal?.kind ?? 'admin',
        ip: ctx.ip,
        user_agent: ctx.header('user-agent') ?? '',
      };
      const audit = ctx.kernel.hasService('audit') ? ctx.kernel.service('audit') : undefined;
      // FGA reset is recorded. The record is written once the reset is allowed
      // and before anything is deleted (the reset's `beforeReset`): a record that cannot be
      // written fails the call with the store untouched, and no reset happens unrecorded (the
      // record used to follow the reset, which had already committed when it failed).
      let recorded = false;
      let emitted: boolean;
      try {
        // The event's outbox rows are stored by the reset's own commit, or neither is stored.
        emitted = await fga(ctx).reset({
          beforeReset: async () => {
            if (!audit) return;
            await audit.record({ name: 'fga.reset', payload, at: Date.now() });
            recorded = true;
          },
          within: (unit) => ctx.kernel.events.emitWithin(unit, 'fga.reset', payload),
        });
      } catch (err) {
        // Refused or failed after its record was written (a tuple written in between, a
        // database error): the log says so too, so that it does not show a reset that never was.
        if (recorded && audit) {
          const metadata = { outcome: 'failed', error: err instanceof Error ? err.message.slice(0, 200) : 'error' };
          await audit
            .record({ name: 'fga.reset', payload: { ...payload, metadata }, at: Date.now() })
            .catch((e: unknown) =>
              ctx.kernel.logger.error({ err: e }, 'audit: the failed FGA reset could not be recorded'),
            );
        }
        throw err;
      }
      // A store with a database of its own (memory, `--fga-store`) shares no transaction with the
      // main database's outbox: the event follows the reset's commit (FgaStore.reset says why).
      if (!emitted) ctx.kernel.events.emit('fga.reset', payload);
      return { message: 'FGA store reset' };
    },
  }),
];
