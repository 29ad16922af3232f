/** The admin audit log list (REST POST /v1/admin/audit_logs; GraphQL `_audit_logs`). */
import { invalidArgument } from '../../core/errors.js';
import { defineOperation, type AnyOperation } from '../../core/operations.js';
import { pageOf, paginationOf } from '../../core/schema.js';
import type { AuditLogRow } from './entities.js';
import { AuditLogs, ListAuditLogRequest } from './schemas.js';

const dto = (r: AuditLogRow) => ({
  id: r.id,
  actor_id: r.actorId,
  actor_type: r.actorType,
  ...(r.actorEmail !== null ? { actor_email: r.actorEmail } : {}),
  action: r.action,
  resource_type: r.resourceType,
  resource_id: r.resourceId,
  ...(r.ipAddress !== null ? { ip_address: r.ipAddress } : {}),
  ...(r.userAgent !== null ? { user_agent: r.userAgent } : {}),
  ...(r.metadata !== null ? { metadata: r.metadata } : {}),
  created_at: Number(r.createdAt),
});

export const auditOperations: AnyOperation[] = [
  defineOperation({
    name: '_audit_logs',
    kind: 'query',
    access: 'admin',
    description:
      'Audit records, newest first; filters: action, actor_id, resource_type, resource_id, from_timestamp and to_timestamp (Unix seconds, inclusive).',
    input: ListAuditLogRequest,
    output: AuditLogs,
    audit: { action: 'audit_log.list', resourceType: 'audit_log' },
    rest: { method: 'POST', path: 'admin/audit_logs' },
    graphql: { required: false },
    handler: async (ctx, input) => {
      if (
        input?.from_timestamp !== undefined &&
        input.to_timestamp !== undefined &&
        input.from_timestamp > input.to_timestamp
      ) {
        throw invalidArgument('from_timestamp is after to_timestamp');
      }
      const page = pageOf(input?.pagination);
      const { rows, total } = await ctx.kernel.service('audit').list(
        {
          action: input?.action,
          actorId: input?.actor_id,
          resourceType: input?.resource_type,
          resourceId: input?.resource_id,
          from: input?.from_timestamp,
          to: input?.to_timestamp,
        },
        page,
      );
      return { pagination: paginationOf(page, total), audit_logs: rows.map(dto) };
    },
  }),
];
