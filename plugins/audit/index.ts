/**
 * The `audit` plugin: a durable record of every admin operation and security event (docs/audit.md),
 * and the admin list `audit_logs`. It records what the other plugins declare: an operation's
 * `audit` field reaches it through the kernel's `audit.record` hook, awaited before the call
 * answers; a plugin's `auditEvents` are domain events it writes as an outbox writer
 * (core/events.ts): an event emitted within the unit of work of its change has its record stored
 * by that unit's commit, and a plain `emit` has it written right after it is emitted.
 */
import { definePlugin } from '../../core/plugin.js';
import { AuditLogEntity } from './entities.js';
import { auditOperations } from './operations.js';
import { createAuditService, recordOfEvent, type AuditService } from './service.js';

export type { AuditService } from './service.js';

export const auditPlugin = definePlugin<AuditService>({
  name: 'audit',
  description: 'Audit log: records every admin operation and security event, and lists them for admins.',
  entities: [AuditLogEntity],
  operations: auditOperations,
  setup: (ctx) => {
    const service = createAuditService(ctx.storage);
    ctx.hooks.on('audit.record', (record) => service.write(record));
    for (const plugin of ctx.definitions) {
      for (const [name, declaration] of Object.entries(plugin.auditEvents ?? {})) {
        ctx.events.addWriter(name, (event, unit) => service.write(recordOfEvent(declaration, event), unit));
      }
    }
    return service;
  },
});
