/**
 * The audit log table (schema.graphql `AuditLog`): one row per audited event,
 * never updated. Times are Unix seconds; `metadata` is JSON text, which reads the same on every
 * driver. Indexed for the admin list's filters and its newest-first order.
 */
import { defineEntity } from '@mikro-orm/core';

export interface AuditLogRow {
  id: string;
  actorId: string;
  actorType: string;
  actorEmail: string | null;
  action: string;
  resourceType: string;
  resourceId: string;
  ipAddress: string | null;
  userAgent: string | null;
  metadata: string | null;
  createdAt: number;
}

export const AuditLogEntity = defineEntity({
  name: 'LatchkeyAuditLog',
  tableName: 'latchkey_audit_logs',
  indexes: [
    { properties: ['createdAt'] },
    { properties: ['action', 'createdAt'] },
    { properties: ['actorId', 'createdAt'] },
  ],
  properties: (p) => ({
    // `_id`: the same definition passes MikroORM's MongoDB validation (as the FGA tables do).
    id: p.string().primary().fieldName('_id').length(64),
    actorId: p.string().fieldName('actor_id').length(320),
    actorType: p.string().fieldName('actor_type').length(32),
    actorEmail: p.string().fieldName('actor_email').length(320).nullable(),
    action: p.string().length(128),
    resourceType: p.string().fieldName('resource_type').length(64),
    resourceId: p.string().fieldName('resource_id').length(512),
    ipAddress: p.string().fieldName('ip_address').length(64).nullable(),
    userAgent: p.string().fieldName('user_agent').length(512).nullable(),
    metadata: p.text().nullable(),
    createdAt: p.bigint('number').fieldName('created_at'),
  }),
});
