/**
 * The audit log: records audited actions (audited-events.ts), called by the operation that
 * performs one and awaited before it answers, and lists them for admins, newest first, filtered
 * by action, actor, resource and time (SPEC.md Admin API `audit_logs`). A record is written once
 * and never changed; it names who acted and from where, never a token or secret.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { DomainEvent } from '../../core/events.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/index.js';
import { AUDITED_EVENTS } from './audited-events.js';
import { AuditLogEntity, type AuditLogRow } from './entities.js';

export interface AuditFilter {
  action?: string;
  actorId?: string;
  resourceType?: string;
  resourceId?: string;
  /** Unix seconds, inclusive. */
  from?: number;
  to?: number;
}

export interface AuditService {
  /** Records one audited event; events not audited are ignored. */
  record(event: DomainEvent): Promise<void>;
  list(filter: AuditFilter, page: { limit: number; offset: number }): Promise<{ rows: AuditLogRow[]; total: number }>;
}

declare module '../../core/services.js' {
  interface Services {
    audit: AuditService;
  }
}

/** A payload field as bounded text, or null. */
function text(value: unknown, max: number): string | null {
  return typeof value === 'string' && value !== '' ? value.slice(0, max) : null;
}

export function createAuditService(storage: Storage): AuditService {
  const em = (): EntityManager => storage.em();
  const caseBlind = storage.type === 'mysql' || storage.type === 'mariadb';
  return {
    async record(event) {
      const audited = AUDITED_EVENTS[event.name];
      if (!audited) return;
      const p = event.payload;
      const row: AuditLogRow = {
        id: newId(),
        actorId: text(p.actor, 320) ?? 'unknown',
        actorType: text(p.actor_kind, 32) ?? 'unknown',
        actorEmail: text(p.actor_email, 320),
        action: audited.action,
        resourceType: audited.resourceType,
        resourceId: audited.resourceId(p).slice(0, 512),
        ipAddress: text(p.ip, 64),
        userAgent: text(p.user_agent, 512),
        metadata: p.metadata !== undefined ? JSON.stringify(p.metadata) : null,
        createdAt: Math.floor(event.at / 1000),
      };
      const fork = em();
      fork.create(AuditLogEntity, row as never);
      await fork.flush();
    },
    async list(filter, page) {
      const where: Record<string, unknown> = {};
      if (filter.action !== undefined) where.action = filter.action;
      if (filter.actorId !== undefined) where.actorId = filter.actorId;
      if (filter.resourceType !== undefined) where.resourceType = filter.resourceType;
      if (filter.resourceId !== undefined) where.resourceId = filter.resourceId;
      if (filter.from !== undefined || filter.to !== undefined) {
        where.createdAt = { ...(filter.from !== undefined ? { $gte: filter.from } : {}), ...(filter.to !== undefined ? { $lte: filter.to } : {}) };
      }
      const order = { orderBy: { createdAt: 'desc', id: 'desc' } as never };
      const textFilter = filter.action !== undefined || filter.actorId !== undefined || filter.resourceType !== undefined || filter.resourceId !== undefined;
      if (!textFilter || !caseBlind) {
        const [rows, total] = await em().findAndCount(AuditLogEntity, where as never, { ...order, limit: page.limit, offset: page.offset });
        return { rows: rows as unknown as AuditLogRow[], total };
      }
      // MySQL and MariaDB compare ignoring case and trailing spaces: their matches are narrowed to
      // exact ones here, before the page is cut, so pages and `total` agree (review finding).
      const rows = (await em().find(AuditLogEntity, where as never, order)) as unknown as AuditLogRow[];
      const exact = rows.filter(
        (r) =>
          (filter.action === undefined || r.action === filter.action) &&
          (filter.actorId === undefined || r.actorId === filter.actorId) &&
          (filter.resourceType === undefined || r.resourceType === filter.resourceType) &&
          (filter.resourceId === undefined || r.resourceId === filter.resourceId),
      );
      return { rows: exact.slice(page.offset, page.offset + page.limit), total: exact.length };
    },
  };
}
