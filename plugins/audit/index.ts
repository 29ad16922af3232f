/**
 * The `audit` plugin: a durable record of audited actions (SPEC.md "Audit": FGA reset; domain
 * verification once organizations are built), written as their domain events are emitted, and
 * the admin list `audit_logs`.
 */
import { definePlugin } from '../../core/plugin.js';
import { AUDITED_EVENTS } from './audited-events.js';
import { AuditLogEntity } from './entities.js';
import { auditOperations } from './operations.js';
import { createAuditService, type AuditService } from './service.js';

export type { AuditService } from './service.js';

export const auditPlugin = definePlugin<AuditService>({
  name: 'audit',
  description: 'Audit log: records audited actions (FGA reset) and lists them for admins.',
  entities: [AuditLogEntity],
  operations: auditOperations,
  setup: (ctx) => {
    const service = createAuditService(ctx.storage);
    for (const name of Object.keys(AUDITED_EVENTS)) {
      ctx.events.on(name, async (event) => {
        try {
          await service.record(event);
        } catch (err) {
          // An audit record that cannot be written is an operator's problem to see, loudly.
          ctx.logger.error({ err, event: event.name }, 'audit record could not be written');
          throw err;
        }
      });
    }
    return service;
  },
});
