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

/** Absent or undefined fields do not filter. */
export interface AuditFilter {
  action?: string | undefined;
  actorId?: string | undefined;
  resourceType?: string | undefined;
  resourceId?: string | undefined;
  /** Unix seconds, inclusive. */
  from?: number | undefined;
  to?: number | undefined;
}

export interface AuditService {
  /** Records one audited action; a name that is not in AUDITED_EVENTS is a programming error and throws. */
  record(event: DomainEvent): Promise<void>;
  list(filter: AuditFilter, page: { limit: number; offset: number }): Promise<{ rows: AuditLogRow[]; total: number }>;
}

declare module '../../core/services.js' {
  interface Services {
    audit: AuditService;
  }
}

/** The filters that compare text, each named as the row field it matches. */
const TEXT_FILTERS = ['action', 'actorId', 'resourceType', 'resourceId'] as const;

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
      // A caller naming an action this log does not know would otherwise lose its record unseen.
      if (!audited) throw new Error(`audit: "${event.name}" is not an audited action`);
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
      for (const k of TEXT_FILTERS) if (filter[k] !== undefined) where[k] = filter[k];
      if (filter.from !== undefined || filter.to !== undefined) {
        where.createdAt = {
          ...(filter.from !== undefined ? { $gte: filter.from } : {}),
          ...(filter.to !== undefined ? { $lte: filter.to } : {}),
        };
      }
      const order = { orderBy: { createdAt: 'desc', id: 'desc' } as never };
      if (!caseBlind || TEXT_FILTERS.every((k) => filter[k] === undefined)) {
        const [rows, total] = await em().findAndCount(AuditLogEntity, where as never, {
          ...order,
          limit: page.limit,
          offset: page.offset,
        });
        return { rows: rows as unknown as AuditLogRow[], total };
      }
      // MySQL and MariaDB compare ignoring case and trailing spaces: their matches are narrowed to
      // exact ones here, before the page is cut, so pages and `total` agree (review finding).
      const rows = (await em().find(AuditLogEntity, where as never, order)) as unknown as AuditLogRow[];
      const exact = rows.filter((r) => TEXT_FILTERS.every((k) => filter[k] === undefined || r[k] === filter[k]));
      return { rows: exact.slice(page.offset, page.offset + page.limit), total: exact.length };
    },
  };
}
