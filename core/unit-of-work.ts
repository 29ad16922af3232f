/**
 * A unit of work: one database transaction shared by a change and the outbox rows it emits
 * (the transactional outbox). The plugin that writes the change opens the unit on its own
 * EntityManager fork; whoever writes durable side effects of that change (the webhook outbox,
 * the mail outbox) creates its rows on `em` without flushing, so the one commit stores the change
 * and its rows together or neither. Work that must wait for the commit (waking a delivery
 * worker, in-process subscribers of the event bus) registers with `afterCommit` and runs only
 * once the commit succeeded.
 */
import type { EntityManager } from '@mikro-orm/core';

export interface UnitOfWork {
  /** The unit's EntityManager: rows created on it are written by the unit's commit. */
  readonly em: EntityManager;
  /** Runs `fn` after a successful commit, in registration order; never after a failed one. */
  afterCommit(fn: () => void): void;
}

/** A unit of work with its commit, for the code that opened it. */
export interface OpenUnitOfWork extends UnitOfWork {
  /**
   * Flushes `em` (MikroORM writes every pending row of the flush in one transaction) and then
   * runs the after-commit work; a failing after-commit step is reported to `onError` and does
   * not fail the commit, which has happened. `statements`: a change written with native
   * statements (`nativeDelete`) runs them on `em` inside that same transaction, before the
   * pending rows; a throw from it rolls the whole transaction back. Nothing else may read on
   * another EntityManager meanwhile (SQLite has one connection, which the transaction holds):
   * the writers have done their reads when they added their rows.
   */
  commit(statements?: (em: EntityManager) => Promise<void>): Promise<void>;
}

export function openUnitOfWork(em: EntityManager, onError: (err: unknown) => void = () => {}): OpenUnitOfWork {
  const after: (() => void)[] = [];
  return {
    em,
    afterCommit: (fn) => void after.push(fn),
    async commit(statements) {
      if (!statements) await em.flush();
      else {
        await em.begin();
        try {
          await statements(em);
          await em.commit();
        } catch (err) {
          await em.rollback();
          throw err;
        }
      }
      for (const fn of after.splice(0)) {
        try {
          fn();
        } catch (err) {
          onError(err);
        }
      }
    },
  };
}
