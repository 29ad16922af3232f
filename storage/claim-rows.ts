/**
 * Claiming queued rows for one worker among several nodes (webhook deliveries; any outbox with a
 * lease). A row is claimed by setting its lease (`leaseUntil`, `leaseOwner`) where nobody holds
 * one; the worker then finishes it with an update fenced by that same lease, so a node whose
 * lease ran out cannot overwrite the row another node has claimed since.
 *
 * PostgreSQL, MySQL and MariaDB first pick the rows with `SELECT … FOR UPDATE SKIP LOCKED` in a
 * transaction (MikroORM's PESSIMISTIC_PARTIAL_WRITE): concurrent claimers skip each other's rows
 * instead of queuing on them. Everywhere else (SQLite, libSQL, MongoDB) a conditional update per
 * candidate takes it only when the lease is still free and the row still due: of two nodes racing
 * for one row, the database reports one changed row to exactly one of them, and a row another node
 * finished and released since it was read is not taken again. Both paths leave the same lease.
 *
 * A claimer may decline some of the due rows it reads (`accept`, for a cap per group of rows such
 * as the deliveries of one webhook): a declined row is left as it is, without a lease, for a later
 * claim, and the rows after it are still looked at in order.
 */
import { LockMode, raw, type EntityManager, type FilterQuery } from '@mikro-orm/core';
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
  /**
   * A whole-number property raised by one on every claimed row, with its lease (an attempt
   * count); the rows answered carry the raised value.
   */
  count?: keyof T & string;
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
  const { count } = options;
  const counted = (row: T): Partial<T> => (count ? ({ [count]: (row[count] as number) + 1 } as Partial<T>) : {});
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
      // The rows are locked until the commit, so the counter is raised in the same statement as
      // the lease for all of them: `count = count + 1`.
      const raised = count
        ? { [count]: raw(`${tx.getPlatform().quoteIdentifier(fieldOf(tx, entity, count))} + 1`) }
        : {};
      await tx.nativeUpdate(entity, { id: { $in: rows.map((r) => r.id) } } as never, { ...lease, ...raised } as never);
      const claimed = rows.map((r) => ({ ...r, ...lease, ...counted(r) }));
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
    // Taken only while it is still as it was read: due, its lease free and its counter unchanged.
    // A row another claimer took, finished and released since the read is no longer due, and is
    // left alone rather than run a second time.
    const unchanged = count ? [{ [count]: row[count] }] : [];
    const changed = await storage
      .em()
      .nativeUpdate(
        entity,
        { $and: [{ id: row.id }, options.due, freeLease(now), ...unchanged] } as never,
        { ...lease, ...counted(row) } as never,
      );
    if (changed === 1) claimed.push({ ...row, ...lease, ...counted(row) });
  }
  const { withClaimed } = options;
  if (withClaimed && claimed.length > 0) await storage.em().transactional((tx) => withClaimed(tx, claimed));
  return claimed;
}

/** The column of an entity's property, as the ORM maps it. */
function fieldOf(em: EntityManager, entity: EntityDefinition, property: string): string {
  const prop = em.getMetadata().get(entity.meta.className).properties[property];
  if (!prop?.fieldNames?.[0]) throw new Error(`claimRows: ${entity.meta.className} has no column for ${property}`);
  return prop.fieldNames[0];
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
