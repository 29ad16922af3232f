/** Request and answer of the admin audit log list (schema.graphql `AuditLog`). */
import {
  InputObject,
  Int64,
  OptInt64,
  OptStr,
  OutputObject,
  Pagination,
  PaginationRequest,
  Type,
} from '../../core/schema.js';

/** Unix seconds: a larger bound is a 500 on PostgreSQL; this is year 275760. */
const MAX_TIMESTAMP = 8_640_000_000_000;

export const ListAuditLogRequest = InputObject('ListAuditLogRequest', {
  pagination: Type.Optional(PaginationRequest),
  action: OptStr({ max: 128 }),
  actor_id: OptStr({ max: 320 }),
  resource_type: OptStr({ max: 64 }),
  resource_id: OptStr({ max: 512 }),
  /** Unix seconds, inclusive. */
  from_timestamp: OptInt64({ min: 0, max: MAX_TIMESTAMP }),
  /** Unix seconds, inclusive. */
  to_timestamp: OptInt64({ min: 0, max: MAX_TIMESTAMP }),
});

const OptText = () => Type.Optional(Type.String());

export const AuditLog = OutputObject('AuditLog', {
  id: Type.String(),
  actor_id: Type.String(),
  actor_type: Type.String(),
  actor_email: OptText(),
  action: Type.String(),
  resource_type: Type.String(),
  resource_id: Type.String(),
  ip_address: OptText(),
  user_agent: OptText(),
  /** JSON text. */
  metadata: OptText(),
  created_at: Int64(),
});

export const AuditLogs = OutputObject('AuditLogs', { pagination: Pagination, audit_logs: Type.Array(AuditLog) });
