/**
 * The `audit` plugin: a durable record of audited actions (SPEC.md "Audit": FGA reset; domain
 * verification once organizations are built), and the admin list `audit_logs`.
 */
import { definePlugin } from '../../core/plugin.js';
import { AuditLogEntity } from './entities.js';
import { auditOperations } from './operations.js';
import { createAuditService, type AuditService } from './service.js';

export type { AuditService } from './service.js';

export const auditPlugin = definePlugin<AuditService>({
  name: 'audit',
  description: 'Audit log: records audited actions (FGA reset) and lists them for admins.',
  entities: [AuditLogEntity],
  operations: auditOperations,
  // Operations that perform an audited action call `record` and await it before they answer
  // (review finding: written from the domain event after the answer, a failed record reached only
  // the log, and a crash in between lost it). The events still go to webhooks.
  setup: (ctx) => createAuditService(ctx.storage),
});
