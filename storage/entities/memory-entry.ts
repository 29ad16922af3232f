/**
 * The core entity behind the database memory store: one row per key, with the
 * value as text and the expiry as Unix milliseconds (a plain number compares the same way on
 * every database and needs no time-zone handling).
 */
import { defineEntity, type EntitySchema } from '@mikro-orm/core';
import type { DatabaseType } from '../../core/storage.js';

export const MEMORY_TABLE = 'latchkey_memory';
/** Longest key the database store accepts (bounded by MySQL's 3072-byte index limit at 4 bytes a character). */
export const MEMORY_KEY_MAX = 500;

export interface MemoryEntryRow {
  key: string;
  value: string;
  expiresAt: number;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function memoryEntryEntity(type: DatabaseType): EntitySchema<any, never> {
  if (type === 'mongodb') {
    return defineEntity({
      name: 'LatchkeyMemoryEntry',
      collection: MEMORY_TABLE,
      properties: (p) => ({
        _id: p.string().primary(),
        value: p.string(),
        expiresAt: p.bigint('number').index(),
      }),
    });
  }
  // MySQL and MariaDB compare strings case-insensitively by default; keys are tokens where case
  // matters, so the key column gets a binary collation there.
  const keyColumn =
    type === 'mysql' || type === 'mariadb' ? `varchar(${MEMORY_KEY_MAX}) collate utf8mb4_bin` : undefined;
  return defineEntity({
    name: 'LatchkeyMemoryEntry',
    tableName: MEMORY_TABLE,
    properties: (p) => ({
      key: keyColumn
        ? p.string().primary().length(MEMORY_KEY_MAX).columnType(keyColumn)
        : p.string().primary().length(MEMORY_KEY_MAX),
      value: p.text(),
      expiresAt: p.bigint('number').fieldName('expires_at').index(),
    }),
  });
}
