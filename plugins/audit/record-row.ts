/**
 * An audit record as a table row: text bounded to its column, metadata as JSON text without any
 * field whose name says it holds a secret (a declaration that passed one by mistake still keeps
 * it out of the log), and bounded in size.
 */
import type { AuditRecord } from '../../core/audit.js';
import { newId } from '../../storage/index.js';
import type { AuditLogRow } from './entities.js';

/** Field names that hold secrets somewhere in this project or its protocols. */
const SECRET_NAME = /pass(word)?|secret|token|otp|recovery|private|credential|cookie|authorization|signature/i;

/** Metadata longer than this is replaced by a note saying so (the column is TEXT). */
export const MAX_METADATA_CHARS = 4096;

function withoutSecrets(value: unknown, depth = 0): unknown {
  if (depth > 8) return '[nested too deeply]';
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => withoutSecrets(v, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (!SECRET_NAME.test(k)) out[k] = withoutSecrets(v, depth + 1);
    return out;
  }
  return value;
}

export function metadataText(record: AuditRecord): string | null {
  const facts: Record<string, unknown> = {
    ...(record.metadata ?? {}),
    ...(record.operation ? { operation: record.operation } : {}),
    ...(record.outcome === 'failure' ? { outcome: 'failure', error: record.errorCode } : {}),
  };
  if (Object.keys(facts).length === 0) return null;
  const text = JSON.stringify(withoutSecrets(facts));
  return text.length <= MAX_METADATA_CHARS ? text : JSON.stringify({ truncated: true, operation: record.operation });
}

const bounded = (value: string | undefined, max: number): string | null =>
  value === undefined || value === '' ? null : value.slice(0, max);

export function rowOf(record: AuditRecord): AuditLogRow {
  return {
    id: newId(),
    actorId: bounded(record.actor.id, 320) ?? 'unknown',
    actorType: bounded(record.actor.kind, 32) ?? 'unknown',
    actorEmail: bounded(record.actor.email, 320),
    action: record.action.slice(0, 128),
    resourceType: record.resourceType.slice(0, 64),
    resourceId: record.resourceId.slice(0, 512),
    ipAddress: bounded(record.ip, 64),
    userAgent: bounded(record.userAgent, 512),
    metadata: metadataText(record),
    createdAt: Math.floor(record.at / 1000),
  };
}
