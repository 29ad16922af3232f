/**
 * Rows kept one per organization (the organization SSO connections): found by their id or their
 * organization's, inserted once per organization (a second one is refused, also when two inserts
 * race: the unique index on `orgId` stops the loser), changed with `updatedAt` stamped, deleted by
 * id or with their organization inside its deletion's transaction.
 */
import { UniqueConstraintViolationException, type EntityManager } from '@mikro-orm/core';
import type { ServiceError } from '../core/errors.js';
import type { EntityDefinition, Storage } from '../core/storage.js';

export interface OrgScopedRow {
  id: string;
  orgId: string;
  updatedAt: number;
}

export interface OrgScopedRows<R extends OrgScopedRow> {
  get(id: string): Promise<R | null>;
  byOrg(orgId: string): Promise<R | null>;
  /** Inserts the organization's row; `duplicate()` when the organization has one. */
  insert(row: R): Promise<void>;
  /**
   * Writes the defined `fields` onto the stored row, then lets `change` set what is stored in
   * another form than it is given (sealed, serialized); `notFound()` when absent.
   */
  update(id: string, fields: Partial<R>, change?: (row: R) => void): Promise<R>;
  /** `notFound()` when absent. */
  remove(id: string): Promise<void>;
  /** Deletes the organization's row with `em`, the organization deletion's transaction. */
  removeForOrg(orgId: string, em: EntityManager): Promise<void>;
}

export function orgScopedRows<R extends OrgScopedRow>(
  storage: Storage,
  entity: EntityDefinition,
  errors: { notFound: () => ServiceError; duplicate: () => ServiceError },
): OrgScopedRows<R> {
  const find = async (em: EntityManager, where: Partial<OrgScopedRow>) =>
    (await em.findOne(entity, where as never)) as R | null;
  return {
    get: (id) => find(storage.em(), { id }),
    byOrg: (orgId) => find(storage.em(), { orgId }),
    async insert(row) {
      if (await find(storage.em(), { orgId: row.orgId })) throw errors.duplicate();
      try {
        await storage.em().insert(entity, row as never);
      } catch (err) {
        if (err instanceof UniqueConstraintViolationException) throw errors.duplicate();
        throw err;
      }
    },
    async update(id, fields, change) {
      const em = storage.em();
      const row = await find(em, { id });
      if (!row) throw errors.notFound();
      for (const [k, v] of Object.entries(fields)) if (v !== undefined) (row as Record<string, unknown>)[k] = v;
      change?.(row);
      row.updatedAt = Date.now();
      await em.flush();
      return row;
    },
    async remove(id) {
      if ((await storage.em().nativeDelete(entity, { id } as never)) === 0) throw errors.notFound();
    },
    async removeForOrg(orgId, em) {
      await em.nativeDelete(entity, { orgId } as never);
    },
  };
}
