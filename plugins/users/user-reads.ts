/** Reads of one user by id, email or phone number, with the caches that keep logins cheap. */
import { ExpiringCache } from '../../core/expiring-cache.js';
import { StampedReads } from '../../core/stamped-reads.js';
import type { Storage } from '../../core/storage.js';
import { UserEntity, type UserRow } from './entities.js';
import { sqlPointLookup } from './point-lookup.js';
import { toRecord } from './records.js';
import type { UserRecord } from './types.js';

const BY_ID_TTL_MS = 2_000;

export interface UserReads {
  /** The user whose column holds exactly `value`, from the database. */
  findOne(by: 'id' | 'email' | 'phoneNumber', value: string): Promise<UserRecord | null>;
  /** By email or phone, kept while the SQLite file has no new commit. */
  findKept(by: 'email' | 'phoneNumber', value: string): Promise<UserRecord | null>;
  /** By id, from the per-process cache unless `fresh`. */
  findById(id: string, fresh: boolean): Promise<UserRecord | null>;
  cachedById(id: string): UserRecord | undefined;
  /** Forgets the cached copy of a user this process is changing. */
  forget(id: string): void;
}

export function createUserReads(storage: Storage): UserReads {
  // Point lookups (every login, every uncached read) skip entity hydration and the identity map
  // on SQL databases: one prepared statement per column (point-lookup.ts says why). Nothing is
  // written through these rows; writes load entities with `em.findOne`.
  const pointLookup = storage.isSql ? sqlPointLookup(storage, UserEntity.meta.className) : null;
  /**
   * MySQL and MariaDB compare under the column's collation, which ignores case and trailing
   * spaces: `where id = ?` finds the user for `<ID IN UPPER CASE>` or `<id> `, and a caller going
   * on with the text it was given would end sessions under a key nobody holds (an admin revoke
   * would leave the user's tokens working there). Only the exact value is a match, as on SQLite
   * and PostgreSQL.
   */
  const findOne = async (by: 'id' | 'email' | 'phoneNumber', value: string): Promise<UserRecord | null> => {
    const row = pointLookup
      ? await pointLookup(by, value)
      : ((await storage.em().findOne(UserEntity, { [by]: value } as never)) as UserRow | null);
    return row && row[by] === value ? toRecord(row) : null;
  };
  // Reads by id (every bearer `profile`, every refresh) hit a short per-process cache. Writes
  // through this service invalidate it at once; another node's write is seen within
  // BY_ID_TTL_MS. Access decisions never depend on it: revocation ends sessions, which are
  // checked on every request.
  const byId = new ExpiringCache<string, UserRecord>(10_000);
  const cachedById = (id: string): UserRecord | undefined => byId.get(id, Date.now());
  // Reads by email or phone (every login) on a SQLite file are kept while nothing at all has been
  // committed to the file (core/stamped-reads.ts): exact, unlike byId, so a password change or a
  // revocation here or in another process is seen by the next login. Each read saves a SQLite
  // read transaction (four `fcntl` calls on the -shm locks after any commit) and a row built
  // column by column: ~0.2 ms of the main thread per login under the login bench
  // (npm run bench accounts). Only found users are kept, so unknown addresses cannot fill it.
  const byIdentifier = storage.changeStamp
    ? new StampedReads<UserRecord | null>(storage.changeStamp, 10_000)
    : undefined;

  return {
    findOne,
    findKept: (by, value) =>
      byIdentifier
        ? byIdentifier.read(
            `${by}:${value}`,
            () => findOne(by, value),
            (user) => user !== null,
          )
        : findOne(by, value),
    async findById(id, fresh) {
      if (id.length > 64) return null;
      const hit = fresh ? undefined : cachedById(id);
      if (hit) return hit;
      const user = await findOne('id', id);
      if (user) byId.set(id, user, Date.now() + BY_ID_TTL_MS);
      return user;
    },
    cachedById,
    forget: (id) => byId.delete(id),
  };
}
