/** The stored OTP-style enrollments (entities.ts), shared by the factor plugins through the `mfa` service. */
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { rowReader } from '../../storage/index.js';
import { MfaFactorEntity, type MfaFactorRow } from './entities.js';
import type { FactorRecord, FactorStore, MfaMethod } from './types.js';

const toRecord = (r: MfaFactorRow): FactorRecord => ({
  id: r.id,
  userId: r.userId,
  method: r.method as MfaMethod,
  verified: Boolean(r.verified),
  secret: r.secret ?? null,
  lastTimeStep: r.lastTimeStep === null || r.lastTimeStep === undefined ? null : Number(r.lastTimeStep),
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
});

export function createFactorStore(storage: Storage): FactorStore {
  // Every sign-in asks each factor whether the user has it (the MFA gate): one fixed statement
  // on SQL databases (storage/row-reads.ts), not a query built by the ORM per login.
  const readRow = storage.isSql ? rowReader(storage, MfaFactorEntity.meta.className) : undefined;
  async function find(userId: string, method: MfaMethod): Promise<FactorRecord | null> {
    const row = (
      readRow ? await readRow({ userId, method }) : await storage.em().findOne(MfaFactorEntity, { userId, method })
    ) as MfaFactorRow | null;
    return row ? toRecord(row) : null;
  }
  return {
    find,
    async begin(userId, method, secret) {
      const em = storage.em();
      const now = Date.now();
      const found = (await em.findOne(MfaFactorEntity, { userId, method })) as MfaFactorRow | null;
      if (found?.verified) return toRecord(found);
      if (found) {
        found.secret = secret;
        found.lastTimeStep = null;
        found.updatedAt = now;
        await em.flush();
        return toRecord(found);
      }
      const row: MfaFactorRow = {
        id: newId(),
        userId,
        method,
        verified: false,
        secret,
        lastTimeStep: null,
        createdAt: now,
        updatedAt: now,
      };
      em.create(MfaFactorEntity, row as never);
      try {
        await em.flush();
      } catch {
        // A concurrent enrollment of the same method won the unique (user, method) row.
        const again = await find(userId, method);
        if (again) return again;
        throw new Error('mfa factor enrollment failed');
      }
      return toRecord(row);
    },
    async accept(id, timeStep) {
      const em = storage.em();
      const set = {
        verified: true,
        updatedAt: Date.now(),
        ...(timeStep !== undefined ? { lastTimeStep: timeStep } : {}),
      };
      // One conditional update: of two requests carrying the same TOTP code only one finds the
      // step still unused (RFC 6238 §5.2).
      const where =
        timeStep === undefined ? { id } : { id, $or: [{ lastTimeStep: null }, { lastTimeStep: { $lt: timeStep } }] };
      const changed = await em.nativeUpdate(MfaFactorEntity, where as never, set as never);
      return changed > 0;
    },
    async remove(userId, method) {
      await storage.em().nativeDelete(MfaFactorEntity, (method ? { userId, method } : { userId }) as never);
    },
  };
}
