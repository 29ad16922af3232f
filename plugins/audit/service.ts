/**
 * The audit log: records audited actions (core/audit.ts declarations; audited-events.ts for the
 * ones an operation writes itself), awaited before the call answers, and lists them for admins, newest first, filtered
 * by action, actor, resource and time (the admin operation `audit_logs`). A record is written once
 * and never changed; it names who acted and from where, never a token or secret.
 */
import type { EntityManager } from '@mikro-orm/core';
import type { AuditEventDeclaration, AuditRecord } from '../../core/audit.js';
import type { DomainEvent } from '../../core/events.js';
import type { Storage } from '../../core/storage.js';
import type { UnitOfWork } from '../../core/unit-of-work.js';
import { rowAppender, type AppendRows } from '../../storage/index.js';
import { AUDITED_EVENTS } from './audited-events.js';
import { AuditLogEntity, type AuditLogRow } from './entities.js';
import { rowOf } from './record-row.js';

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
  /**
   * Records one audited action from an operation declaration or a plugin's `auditEvents`
   * (core/audit.ts). With `unit` the row joins that unit of work (the change it records) and is
   * written by its commit; without, it is written at once.
   */
  write(record: AuditRecord, unit?: UnitOfWork): Promise<void>;
  /** Records one audited domain event named in AUDITED_EVENTS; another name is a programming error and throws. */
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

/** A payload field as text, or undefined. */
function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * The record of an audited domain event: the emitter puts who acted and from where in the
 * payload (`actor`, `actor_kind`, `actor_email`, `ip`, `user_agent`, `metadata`).
 */
export function recordOfEvent(audited: AuditEventDeclaration, event: DomainEvent): AuditRecord {
  const p = event.payload;
  const declared = audited.metadata?.(p);
  const given =
    p.metadata !== null && typeof p.metadata === 'object' ? (p.metadata as Record<string, unknown>) : undefined;
  const metadata = declared || given ? { ...given, ...declared } : undefined;
  const email = text(p.actor_email);
  return {
    action: audited.action,
    resourceType: audited.resourceType,
    resourceId: audited.resourceId(p),
    actor: { kind: text(p.actor_kind) ?? 'unknown', id: text(p.actor) ?? 'unknown', ...(email ? { email } : {}) },
    ip: text(p.ip),
    userAgent: text(p.user_agent),
    outcome: 'success',
    ...(metadata ? { metadata } : {}),
    at: event.at,
  };
}

/** Most rows one statement adds. */
export const MAX_ROWS_PER_WRITE = 32;

interface QueuedRow {
  row: AuditLogRow;
  settle: (err?: unknown) => void;
}

/**
 * Writes rows in groups: every row asked for in one event-loop turn goes into the database with
 * one statement (one commit, one `fsync` of a SQLite file) in the turn's check phase, and each
 * caller's promise settles when its row is committed, so a call still answers only once its
 * record is durable. Why: every sign-in writes a row, and under a login load several finish in one
 * turn (the hash workers answer up to three at a time); one commit each cost a disk flush each.
 * When a group is refused, its rows are written one by one, so a row the database refuses fails
 * alone.
 */
function groupedWrites(append: AppendRows): (row: AuditLogRow) => Promise<void> {
  let queued: QueuedRow[] = [];
  const writeQueued = async (): Promise<void> => {
    const taken = queued;
    queued = [];
    for (let i = 0; i < taken.length; i += MAX_ROWS_PER_WRITE) {
      const group = taken.slice(i, i + MAX_ROWS_PER_WRITE);
      try {
        await append(group.map((q) => q.row));
        for (const q of group) q.settle();
      } catch (err) {
        if (group.length === 1) group[0].settle(err);
        else
          for (const q of group)
            await append([q.row]).then(
              () => q.settle(),
              (alone: unknown) => q.settle(alone),
            );
      }
    }
  };
  return (row) =>
    new Promise<void>((resolve, reject) => {
      if (queued.length === 0) setImmediate(() => void writeQueued());
      queued.push({ row, settle: (err) => (err === undefined ? resolve() : reject(err)) });
    });
}

export function createAuditService(storage: Storage): AuditService {
  const em = (): EntityManager => storage.em();
  const caseBlind = storage.type === 'mysql' || storage.type === 'mariadb';
  const writeRow = storage.isSql
    ? groupedWrites(rowAppender(storage, AuditLogEntity.meta.className))
    : async (row: AuditLogRow): Promise<void> => {
        const fork = em();
        fork.create(AuditLogEntity, row as never);
        await fork.flush();
      };
  const write = async (record: AuditRecord, unit?: UnitOfWork): Promise<void> => {
    if (!unit) return writeRow(rowOf(record));
    unit.em.create(AuditLogEntity, rowOf(record) as never);
  };
  return {
    write,
    async record(event) {
      const audited = AUDITED_EVENTS[event.name];
      // A caller naming an action this log does not know would otherwise lose its record unseen.
      if (!audited) throw new Error(`audit: "${event.name}" is not an audited action`);
      await write(recordOfEvent(audited, event));
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
      // exact ones here, before the page is cut, so pages and `total` agree.
      const rows = (await em().find(AuditLogEntity, where as never, order)) as unknown as AuditLogRow[];
      const exact = rows.filter((r) => TEXT_FILTERS.every((k) => filter[k] === undefined || r[k] === filter[k]));
      return { rows: exact.slice(page.offset, page.offset + page.limit), total: exact.length };
    },
  };
}
