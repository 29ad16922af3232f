/**
 * Claiming queued rows for one worker among several nodes (webhook deliveries; any outbox with a
 * lease). A row is claimed by setting its lease (`leaseUntil`, `leaseOwner`) where nobody holds
 * one; the worker then finishes it with an update fenced by that same lease, so a node whose
 * lease ran out cannot overwrite the row another node has claimed since.
 *
 * PostgreSQL, MySQL and MariaDB first pick the rows with `SELECT … FOR UPDATE SKIP LOCKED` in a
 * transaction (MikroORM's PESSIMISTIC_PARTIAL_WRITE): concurrent claimers skip each other's rows
 * instead of queuing on them. Everywhere else (SQLite, libSQL, MongoDB) a conditional update per
 * candidate takes it only when the lease is still free: of two nodes racing for one row, the
 * database reports one changed row to exactly one of them. Both paths leave the same lease.
 *
 * A claimer may decline some of the due rows it reads (`accept`, for a cap per group of rows such
 * as the deliveries of one webhook): a declined row is left as it is, without a lease, for a later
 * claim, and the rows after it are still looked at in order.
 */
import { LockMode, type EntityManager, type FilterQuery } from '@mikro-orm/core';
import type { EntityDefinition, Storage } from '../core/storage.js';

export interface LeasedRow {
  id: string;
  leaseUntil: number | null;
  leaseOwner: string | null;
}

export interface ClaimOptions<T extends LeasedRow = LeasedRow> {
  /** The rows that are due (for example `{ state: 'pending', nextAttemptAt: { $lte: now } }`). */
  due: Record<string, unknown>;
  /** The due rows are taken in this order (oldest first). */
  orderBy: Record<string, 'asc' | 'desc'>;
  limit: number;
  /** Who claims: a per-process id. */
  owner: string;
  leaseMs: number;
  /** Default Date.now(). */
  now?: number;
  /**
   * Asked for each due row read, in `orderBy` order, before it is claimed: false leaves the row
   * unclaimed (no lease, nothing changed). Absent: every row read is claimed.
   */
  accept?: (row: T) => boolean;
  /**
   * Writes made with the claimed rows (each already holding its new lease), in the claim's
   * transaction where it is one, else in a transaction of their own after the leases were set. A
   * failure there undoes the claim on the first path and leaves the leases to run out on the
   * second; either way the claim fails. Not called when nothing was claimed.
   */
  withClaimed?: (tx: EntityManager, rows: T[]) => Promise<void>;
}

const SKIP_LOCKED_DATABASES = new Set(['postgres', 'mysql', 'mariadb']);

/** The lease is free: never taken, or run out. */
const freeLease = (now: number) => ({ $or: [{ leaseUntil: null }, { leaseUntil: { $lt: now } }] });

/** Claims up to `limit` due rows for `owner`; answers the claimed rows with their new lease. */
export async function claimRows<T extends LeasedRow>(
  storage: Storage,
  entity: EntityDefinition,
  options: ClaimOptions<T>,
): Promise<T[]> {
  const accept = options.accept ?? (() => true);
  const now = options.now ?? Date.now();
  const lease = { leaseUntil: now + options.leaseMs, leaseOwner: options.owner };
  const where = { $and: [options.due, freeLease(now)] } as FilterQuery<T>;
  if (SKIP_LOCKED_DATABASES.has(storage.type)) {
    return storage.em().transactional(async (tx: EntityManager) => {
      const read = (await tx.find(entity, where as never, {
        orderBy: options.orderBy as never,
        limit: options.limit,
        lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
      })) as unknown as T[];
      // A declined row is only locked until this transaction ends; it keeps no lease.
      const rows = read.filter((row) => accept(row));
      if (rows.length === 0) return [];
      await tx.nativeUpdate(entity, { id: { $in: rows.map((r) => r.id) } } as never, lease as never);
      const claimed = rows.map((r) => ({ ...r, ...lease }));
      if (options.withClaimed) await options.withClaimed(tx, claimed);
      return claimed;
    });
  }
  const em = storage.em();
  const candidates = (await em.find(entity, where as never, {
    orderBy: options.orderBy as never,
    limit: options.limit,
  })) as unknown as T[];
  const claimed: T[] = [];
  for (const row of candidates) {
    if (!accept(row)) continue;
    const changed = await storage
      .em()
      .nativeUpdate(entity, { $and: [{ id: row.id }, freeLease(now)] } as never, lease as never);
    if (changed === 1) claimed.push({ ...row, ...lease });
  }
  const { withClaimed } = options;
  if (withClaimed && claimed.length > 0) await storage.em().transactional((tx) => withClaimed(tx, claimed));
  return claimed;
}

/**
 * Updates a claimed row only while `lease` is still the one this worker holds; true when it did.
 * A false answer means the lease ran out and another node may hold the row now.
 */
export async function updateLeased(
  em: EntityManager,
  entity: EntityDefinition,
  row: Pick<LeasedRow, 'id' | 'leaseUntil' | 'leaseOwner'>,
  changes: Record<string, unknown>,
): Promise<boolean> {
  const changed = await em.nativeUpdate(
    entity,
    { id: row.id, leaseUntil: row.leaseUntil, leaseOwner: row.leaseOwner } as never,
    changes as never,
  );
  return changed === 1;
}
