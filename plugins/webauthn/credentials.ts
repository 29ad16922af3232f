/** The stored passkeys: list, find, add, count a use (atomically, by the counter read), delete one's own. */
import { ServiceError } from '../../core/errors.js';
import type { Storage } from '../../core/storage.js';
import { newId } from '../../storage/ids.js';
import { rowReader } from '../../storage/index.js';
import { WebauthnCredentialEntity, type WebauthnCredentialRow } from './entities.js';

export interface StoredCredential {
  id: string;
  credentialId: string;
  userId: string;
  name: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: number;
  transports: string[];
  createdAt: number;
  updatedAt: number;
  lastUsedAt: number | null;
}

const toCredential = (r: WebauthnCredentialRow): StoredCredential => ({
  id: r.id,
  credentialId: r.credentialId,
  userId: r.userId,
  name: r.name,
  publicKey: Uint8Array.from(Buffer.from(r.publicKey, 'base64url')),
  counter: Number(r.counter),
  transports: Array.isArray(r.transports) ? [...r.transports] : [],
  createdAt: Number(r.createdAt),
  updatedAt: Number(r.updatedAt),
  lastUsedAt: r.lastUsedAt === null || r.lastUsedAt === undefined ? null : Number(r.lastUsedAt),
});

export function createCredentialStore(storage: Storage) {
  // Every sign-in asks whether the user has a passkey (the MFA gate): one fixed statement on SQL
  // databases (storage/row-reads.ts), not a count built by the ORM per login.
  const readRow = storage.isSql ? rowReader(storage, WebauthnCredentialEntity.meta.className) : undefined;
  return {
    async list(userId: string): Promise<StoredCredential[]> {
      const rows = (await storage.em().find(WebauthnCredentialEntity, { userId } as never, {
        orderBy: { createdAt: 'asc' } as never,
      })) as WebauthnCredentialRow[];
      return rows.map(toCredential);
    },
    async byCredentialId(credentialId: string): Promise<StoredCredential | null> {
      const row = (await storage
        .em()
        .findOne(WebauthnCredentialEntity, { credentialId } as never)) as WebauthnCredentialRow | null;
      return row ? toCredential(row) : null;
    },
    async add(c: {
      credentialId: string;
      userId: string;
      name: string;
      publicKey: Uint8Array;
      counter: number;
      transports: string[];
    }) {
      const now = Date.now();
      const row: WebauthnCredentialRow = {
        id: newId(),
        credentialId: c.credentialId,
        userId: c.userId,
        name: c.name,
        publicKey: Buffer.from(c.publicKey).toString('base64url'),
        counter: c.counter,
        transports: c.transports,
        createdAt: now,
        updatedAt: now,
        lastUsedAt: null,
      };
      const em = storage.em();
      em.create(WebauthnCredentialEntity, row as never);
      try {
        await em.flush();
      } catch {
        throw new ServiceError('already_exists', 'this passkey is already registered');
      }
      return toCredential(row);
    },
    /**
     * Records a use: the counter moves from the value this ceremony read to the new one in one
     * conditional write, so a replayed or concurrent assertion with the same counter fails.
     */
    async recordUse(c: StoredCredential, newCounter: number): Promise<boolean> {
      const now = Date.now();
      const changed = await storage
        .em()
        .nativeUpdate(
          WebauthnCredentialEntity,
          { id: c.id, counter: c.counter } as never,
          { counter: newCounter, lastUsedAt: now, updatedAt: now } as never,
        );
      return changed > 0;
    },
    async remove(userId: string, id: string): Promise<boolean> {
      return (await storage.em().nativeDelete(WebauthnCredentialEntity, { id, userId } as never)) > 0;
    },
    async removeAll(userId: string): Promise<void> {
      await storage.em().nativeDelete(WebauthnCredentialEntity, { userId } as never);
    },
    async any(userId: string): Promise<boolean> {
      if (readRow) return (await readRow({ userId })) !== null;
      return (await storage.em().count(WebauthnCredentialEntity, { userId } as never)) > 0;
    },
  };
}

export type CredentialStore = ReturnType<typeof createCredentialStore>;
