/**
 * Signing-key rotation in the audit log. Keys come from configuration, so a rotation is a start
 * with a signing key other than the one the deployment used before: the key id in use is kept in
 * one row (`latchkey_signing_key`), and a start that finds another id there replaces it and emits
 * `keys.signing_key_rotated` (declared as the audited action `key.rotate`, docs/audit.md) within
 * the same unit of work: the new id and the event's rows (the audit record) are stored by one
 * commit, or neither is. Of several nodes starting with the new key at once, the one whose
 * conditional update changed the row commits, so a rotation is recorded once. The first start of a deployment records the
 * key without reporting a rotation. Only the key id is kept: it is public (every token's header
 * carries it), never the key.
 */
import { defineEntity } from '@mikro-orm/core';
import type { AuditEventDeclaration } from '../../core/audit.js';
import type { EventBus } from '../../core/events.js';
import type { Logger } from '../../core/logger.js';
import type { Storage } from '../../core/storage.js';
import { openUnitOfWork } from '../../core/unit-of-work.js';

export const SIGNING_KEY_ROTATED = 'keys.signing_key_rotated';

const ROW_ID = 'signing';

export const SigningKeyEntity = defineEntity({
  name: 'LatchkeySigningKey',
  tableName: 'latchkey_signing_key',
  properties: (p) => ({
    id: p.string().primary().fieldName('_id').length(64),
    kid: p.string().length(128),
    alg: p.string().length(16),
    updatedAt: p.bigint('number').fieldName('updated_at'),
  }),
});

export const ROTATION_AUDIT: Record<string, AuditEventDeclaration> = {
  [SIGNING_KEY_ROTATED]: {
    action: 'key.rotate',
    resourceType: 'signing_key',
    resourceId: (p) => String(p.kid),
    metadata: (p) => ({ previous_kid: p.previous_kid, algorithm: p.alg }),
  },
};

/** Compares the signing key with the one kept; on a change keeps the new one and reports it. */
export async function noteSigningKey(
  deps: { storage: Storage; events: EventBus; logger: Logger },
  current: { kid: string; alg: string },
): Promise<void> {
  const { storage, events, logger } = deps;
  try {
    const em = storage.em();
    const kept = (await em.findOne(SigningKeyEntity, { id: ROW_ID } as never)) as { kid: string } | null;
    const now = Date.now();
    if (!kept) {
      em.create(SigningKeyEntity, { id: ROW_ID, kid: current.kid, alg: current.alg, updatedAt: now } as never);
      await em.flush();
      return;
    }
    if (kept.kid === current.kid) return;
    const unit = openUnitOfWork(storage.em(), (err) => logger.error({ err }, 'after-commit step failed'));
    await events.emitWithin(unit, SIGNING_KEY_ROTATED, {
      kid: current.kid,
      previous_kid: kept.kid,
      alg: current.alg,
      actor: 'configuration',
      actor_kind: 'system',
    });
    // Another node's update came first: this one rolls back, with the event's rows.
    const reported = new Error('the rotation was reported by another node');
    const changed = await unit
      .commit(async (tx) => {
        const updated = await tx.nativeUpdate(
          SigningKeyEntity,
          { id: ROW_ID, kid: kept.kid } as never,
          { kid: current.kid, alg: current.alg, updatedAt: now } as never,
        );
        if (updated !== 1) throw reported;
      })
      .then(
        () => true,
        (err: unknown) => {
          if (err === reported) return false;
          throw err;
        },
      );
    if (changed) logger.info({ kid: current.kid, previousKid: kept.kid }, 'the signing key was rotated');
  } catch (err) {
    // A first start racing another node's first start, or a database hiccup: the key works
    // either way. A rotation whose record could not be stored kept the previous id too, so the
    // next start reports it again; the log says so.
    logger.warn({ err }, 'the signing key in use could not be compared with the one kept');
  }
}
