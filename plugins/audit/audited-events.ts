/**
 * Domain events the audit log records through `AuditService.record`, for actions whose operation
 * writes its record itself (`recordedByHandler`, core/audit.ts): FGA reset writes it before it
 * deletes anything. Every other audited action is declared by the plugin that
 * performs it (an operation's `audit`, a plugin's `auditEvents`; docs/audit.md).
 */
import type { AuditEventDeclaration } from '../../core/audit.js';

export const AUDITED_EVENTS: Record<string, AuditEventDeclaration> = {
  'fga.reset': { action: 'fga.reset', resourceType: 'fga_store', resourceId: () => '' },
};
