/**
 * FGA tables (tuples and model versions live in the main SQL database unless
 * `--fga-store` says otherwise). Primary keys are stored in a column named `_id` so that the
 * same definitions also pass MikroORM's MongoDB validation when the plugin is part of a build
 * whose main database is MongoDB (FGA is then off, but the entities are still registered).
 *
 * - models: append-only versions; the latest by id (UUIDv7, time-ordered) is the one in force.
 * - tuples: one row per tuple; the id is a digest of the tuple, so a tuple exists at most once
 *   whatever the collation, and pages are stable in id order.
 * - changes: the log other nodes follow, with a gap-free sequence handed out under the lock of
 *   the single counter row (so commit order equals sequence order).
 */
import { defineEntity } from '@mikro-orm/core';

export const fgaModelEntity = defineEntity({
  name: 'LatchkeyFgaModel',
  tableName: 'latchkey_fga_models',
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(36),
    dsl: p.text(),
    createdAt: p.bigint('number').fieldName('created_at'),
    /** The install's change-log sequence: the order models are in force (null on rows from before it was kept). */
    seq: p.bigint('number').nullable(),
  }),
});

export const fgaTupleEntity = defineEntity({
  name: 'LatchkeyFgaTuple',
  tableName: 'latchkey_fga_tuples',
  indexes: [{ properties: ['objectType', 'relation'] }, { properties: ['object', 'relation'] }],
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    objectType: p.string().fieldName('object_type').length(254),
    object: p.string().length(512),
    relation: p.string().length(50),
    user: p.string().fieldName('user_ref').length(512).index(),
    seq: p.bigint('number'),
  }),
});

export const fgaChangeEntity = defineEntity({
  name: 'LatchkeyFgaChange',
  tableName: 'latchkey_fga_changes',
  properties: (p) => ({
    seq: p.bigint('number').primary().fieldName('_id').autoincrement(false),
    op: p.string().length(8),
    object: p.string().length(512).nullable(),
    relation: p.string().length(50).nullable(),
    user: p.string().fieldName('user_ref').length(512).nullable(),
    modelId: p.string().fieldName('model_id').length(36).nullable(),
    at: p.bigint('number'),
  }),
});

export const fgaCounterEntity = defineEntity({
  name: 'LatchkeyFgaCounter',
  tableName: 'latchkey_fga_counter',
  properties: (p) => ({
    id: p.integer().primary().fieldName('_id').autoincrement(false),
    seq: p.bigint('number'),
  }),
});

export const fgaEntities = [fgaModelEntity, fgaTupleEntity, fgaChangeEntity, fgaCounterEntity];
