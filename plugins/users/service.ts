/**
 * The users service: records, uniqueness of email and phone, password checks with lockout.
 *
 * Uniqueness (SPEC.md Versioning 5) is enforced by the application on every database type: a
 * writer first takes a short lock per identifier in the memory store (atomic `setIfAbsent`, shared
 * by every node when the store is Redis or the database), then looks for an existing holder, then
 * writes. Two concurrent signups of one email therefore serialize and the second sees the first.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ExpiringCache } from '../../core/expiring-cache.js';
import { StampedReads } from '../../core/stamped-reads.js';
import type { Config } from '../../core/config.js';
import { invalidArgument, notFound, ServiceError } from '../../core/errors.js';
import type { HookBus } from '../../core/hooks.js';
import type { Logger } from '../../core/logger.js';
import type { MemoryStore } from '../../core/memory-store.js';
import { raw } from '@mikro-orm/core';
import { MAX_TEXT_BYTES, type DatabaseType, type Storage } from '../../core/storage.js';
import { newId } from '../../storage/index.js';
import { UserEntity, type UserRow } from './entities.js';
import { hashPassword, PRODUCTION_PARAMS, verifyPassword } from './password.js';
import { sqlPointLookup } from './point-lookup.js';
import { checkPasswordPolicy, joinList, normalizeEmail, normalizePhone, splitList } from './policy.js';
import { handOverVerification, SIGNUP_IDENTIFIER, UPDATE_EMAIL_IDENTIFIER } from './email-verification.js';
import type {
  CreateOptions,
  NewUser,
  PasswordCheck,
  UpdateOptions,
  UserDto,
  UserListQuery,
  UserPatch,
  UserRecord,
  UsersService,
} from './types.js';
import {
  createVerificationRequests,
  newVerificationRow,
  VerificationEntity,
  type NewVerification,
  type VerificationRecord,
} from './verification.js';
import type { HashWorkers } from './hash-workers.js';
import { AccountHashGate } from './hash-gate.js';

export const DUPLICATE_USER = 'user with given email already exists';
export const LOCKOUT_FAILURES = 5;
export const LOCKOUT_MS = 15 * 60 * 1000;
/** How long an attempt past the first LOCKOUT_FAILURES in flight waits for them (a few hashes' time), and how often it looks. */
const SETTLE_MS = 3_000;
const SETTLE_POLL_MS = 50;
const LOCK_TTL_MS = 15_000;
const BY_ID_TTL_MS = 2_000;

const now = (): number => Math.floor(Date.now() / 1000);

/** BIGINT columns may arrive as strings (PostgreSQL, MySQL) when read without hydration. */
const numOrNull = (v: number | string | null | undefined): number | null =>
  v === null || v === undefined ? null : Number(v);

function toRecord(row: UserRow): UserRecord {
  let appData: Record<string, unknown> | null = null;
  if (row.appData) {
    try {
      appData = JSON.parse(row.appData) as Record<string, unknown>;
    } catch {
      appData = null;
    }
  }
  return {
    id: row.id,
    email: row.email,
    emailVerifiedAt: numOrNull(row.emailVerifiedAt),
    phoneNumber: row.phoneNumber,
    phoneNumberVerifiedAt: numOrNull(row.phoneNumberVerifiedAt),
    password: row.password,
    signupMethods: splitList(row.signupMethods),
    givenName: row.givenName,
    familyName: row.familyName,
    middleName: row.middleName,
    nickname: row.nickname,
    preferredUsername: row.preferredUsername,
    gender: row.gender,
    birthdate: row.birthdate,
    picture: row.picture,
    roles: splitList(row.roles),
    createdAt: Number(row.createdAt),
    updatedAt: Number(row.updatedAt),
    revokedTimestamp: numOrNull(row.revokedTimestamp),
    // Rows read without hydration carry the driver's value (0/1 on SQLite and MySQL).
    isMultiFactorAuthEnabled:
      row.isMultiFactorAuthEnabled === null || row.isMultiFactorAuthEnabled === undefined
        ? null
        : Boolean(row.isMultiFactorAuthEnabled),
    hasSkippedMfaSetupAt: numOrNull(row.hasSkippedMfaSetupAt),
    mfaLockedAt: numOrNull(row.mfaLockedAt),
    enrolledMfaMethods: splitList(row.enrolledMfaMethods ?? ''),
    appData,
  };
}

function searchText(row: Pick<UserRow, 'id' | 'email' | 'givenName' | 'familyName' | 'nickname'>): string {
  return [row.id, row.email, row.givenName, row.familyName, row.nickname]
    .filter((v): v is string => !!v)
    .join('\n')
    .toLowerCase();
}

const PROFILE_COLUMNS = {
  given_name: 'givenName',
  family_name: 'familyName',
  middle_name: 'middleName',
  nickname: 'nickname',
  preferred_username: 'preferredUsername',
  gender: 'gender',
  birthdate: 'birthdate',
  picture: 'picture',
} as const;

export interface UsersDeps {
  config: Config;
  storage: Storage;
  memory: MemoryStore;
  hooks: HookBus;
  /** Told when a verification mail could not be handed over. */
  logger: Logger;
  /** Where password hashes run; default: libuv's pool via @node-rs/argon2's async calls. */
  hashers?: HashWorkers;
}

/**
 * `app_data` as stored: JSON text of at most MAX_APP_DATA_BYTES, what its TEXT column holds
 * everywhere (more was a database error on MySQL and MariaDB). Every login and profile answer
 * carries it: 880 KB of it went out with each login (review finding).
 */
export const MAX_APP_DATA_BYTES = MAX_TEXT_BYTES;

/**
 * Where a (lowercased) query starts in the lowercased search column, compared byte for byte:
 * MySQL and MariaDB would otherwise compare under the column's collation, which also folds
 * accents (`jose` found `José` there only: a review finding). Null where there is no SQL.
 */
function positionSql(type: DatabaseType): string | null {
  switch (type) {
    case 'sqlite':
    case 'libsql':
      return 'instr(search, ?)';
    case 'postgres':
      return 'strpos(search, ?)';
    case 'mysql':
    case 'mariadb':
      return 'instr(search collate utf8mb4_bin, ?)';
    default:
      return null;
  }
}

/**
 * A verification request added to the unit of work that writes its address, so that one commit
 * stores both or neither (email-verification.ts). Returns it with the plain token, for the mail.
 */
function proofOf(em: ReturnType<Storage['em']>, input: NewVerification): { row: VerificationRecord; token: string } {
  const proof = newVerificationRow(input);
  em.create(VerificationEntity, proof.row as never);
  return proof;
}

function appDataText(value: Record<string, unknown>): string {
  const text = JSON.stringify(value);
  if (Buffer.byteLength(text) > MAX_APP_DATA_BYTES)
    throw new ServiceError('invalid_argument', `invalid app_data: at most ${MAX_APP_DATA_BYTES} bytes as JSON`);
  return text;
}

export function createUsersService({ config, storage, memory, hooks, logger, hashers }: UsersDeps): UsersService {
  const strong = config.bool('enable-strong-password');
  const roles = {
    allowed: config.list('roles'),
    defaults: config.list('default-roles'),
    protected: config.list('protected-roles'),
  };
  // Argon2id runs on dedicated worker threads when given (hash-workers.ts explains why), else on
  // libuv's pool through the async calls.
  const hash = (password: string) =>
    hashers ? hashers.hash(password, PRODUCTION_PARAMS) : hashPassword(password, PRODUCTION_PARAMS);
  const verifyHash = (stored: string, password: string) =>
    hashers ? hashers.verify(stored, password) : verifyPassword(stored, password);
  // A hash of a random password, for accounts without one; made on first need, not at boot
  // (every kernel, test kernels included, would otherwise pay a full Argon2id hash to start).
  let decoy: Promise<string> | undefined;
  const decoyHash = (): Promise<string> => {
    if (!decoy) {
      decoy = hash(`decoy-${randomBytes(16).toString('base64url')}`);
      decoy.catch(() => (decoy = undefined)); // a failed hash is retried by the next caller
    }
    return decoy;
  };

  // Point lookups (every login, every uncached read) skip entity hydration and the identity map
  // on SQL databases: one prepared statement per column (point-lookup.ts says why). Nothing is
  // written through these rows; writes load entities with `em.findOne` as before.
  const binaryLike = storage.type === 'mysql' || storage.type === 'mariadb';
  const pointLookup = storage.isSql ? sqlPointLookup(storage, UserEntity.meta.className) : null;
  /**
   * The user whose column holds exactly `value`. MySQL and MariaDB compare under the column's
   * collation, which ignores case and trailing spaces: `where id = ?` found the user for
   * `<ID IN UPPER CASE>` or `<id> `, and callers that went on with the text they were given ended
   * sessions under a key nobody holds (review finding: an admin revoke left the user's tokens
   * working there). Only the exact value is a match, as on SQLite and PostgreSQL.
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
  // revocation here or in another process is seen by the next login. Each read saved a SQLite
  // read transaction (four `fcntl` calls on the -shm locks after any commit) and a row built
  // column by column: ~0.2 ms of the main thread per login under the login bench (session 20).
  // Only found users are kept, so unknown addresses cannot fill it.
  const byIdentifier = storage.changeStamp
    ? new StampedReads<UserRecord | null>(storage.changeStamp, 10_000)
    : undefined;
  const findKept = (by: 'email' | 'phoneNumber', value: string): Promise<UserRecord | null> =>
    byIdentifier
      ? byIdentifier.read(
          `${by}:${value}`,
          () => findOne(by, value),
          (user) => user !== null,
        )
      : findOne(by, value);

  /** Takes the per-identifier locks, runs `fn`, releases. Busy locks are retried briefly. */
  async function withIdentifierLocks<T>(identifiers: string[], fn: () => Promise<T>): Promise<T> {
    const keys = [...new Set(identifiers)].sort().map((i) => `user-unique:${i}`);
    const token = randomBytes(8).toString('hex');
    const held: string[] = [];
    try {
      for (const key of keys) {
        const deadline = Date.now() + LOCK_TTL_MS;
        for (let attempt = 0; ; attempt++) {
          if (await memory.setIfAbsent(key, token, LOCK_TTL_MS)) break;
          if (Date.now() > deadline)
            throw new ServiceError('unavailable', 'could not reserve the identifier, try again');
          await new Promise((r) => setTimeout(r, Math.min(5 * 2 ** attempt, 100)));
        }
        held.push(key);
      }
      return await fn();
    } finally {
      for (const key of held) {
        if ((await memory.get(key).catch(() => null)) === token) await memory.delete(key).catch(() => {});
      }
    }
  }

  async function assertFree(email: string | null, phone: string | null, exceptId?: string): Promise<void> {
    if (email) {
      const holder = await findOne('email', email);
      if (holder && holder.id !== exceptId) throw new ServiceError('already_exists', DUPLICATE_USER);
    }
    if (phone) {
      const holder = await findOne('phoneNumber', phone);
      if (holder && holder.id !== exceptId) throw new ServiceError('already_exists', DUPLICATE_USER);
    }
  }

  // CONTRACT.md "Behaviour facts": five failed logins lock the account for 15 minutes. Failures
  // are counted in a window opened by the first one; the fifth sets the count afresh, full, for
  // 15 minutes, so the lock lasts 15 minutes from that failure (inside the first failure's window
  // it could end at once) and "locked" is just "the count is full": one read per attempt.
  const failuresKey = (key: string) => `login-failures:${key}`;
  const failuresOf = async (key: string): Promise<number> => Number((await memory.get(failuresKey(key))) ?? 0);
  /** Counts a failure under `key`; true when it locks (and then keeps the count full for the lock's time). */
  const recordFailure = async (key: string): Promise<boolean> => {
    if ((await memory.increment(failuresKey(key), LOCKOUT_MS)) < LOCKOUT_FAILURES) return false;
    await memory.set(failuresKey(key), String(LOCKOUT_FAILURES), LOCKOUT_MS);
    return true;
  };
  /** Password checks of each account running in this process now, and who waits for them (see verifyPassword). */
  const gate = new AccountHashGate(LOCKOUT_FAILURES, SETTLE_POLL_MS);

  const verifications = createVerificationRequests(storage);

  const service: UsersService = {
    roles,
    verifications,
    normalizeEmail,
    normalizePhone,
    checkPasswordPolicy: (password) => checkPasswordPolicy(password, strong),
    hashPassword: hash,

    cachedById,
    async findById(id, options = {}) {
      if (id.length > 64) return null;
      const hit = options.fresh ? undefined : cachedById(id);
      if (hit) return hit;
      const user = await findOne('id', id);
      if (user) byId.set(id, user, Date.now() + BY_ID_TTL_MS);
      return user;
    },
    findByEmail: async (email) => {
      let e: string;
      try {
        e = normalizeEmail(email);
      } catch {
        return null;
      }
      return findKept('email', e);
    },
    findByPhone: async (phone) => {
      let p: string;
      try {
        p = normalizePhone(phone);
      } catch {
        return null;
      }
      return findKept('phoneNumber', p);
    },

    async create(input: NewUser, options: CreateOptions = {}) {
      const appData = input.app_data ? appDataText(input.app_data) : null;
      const email = input.email !== undefined && input.email !== '' ? normalizeEmail(input.email) : null;
      const phone =
        input.phone_number !== undefined && input.phone_number !== '' ? normalizePhone(input.phone_number) : null;
      // Hash before taking the locks: the slow part must not hold them.
      const password = input.password !== undefined ? await hash(input.password) : null;
      const ids = [...(email ? [`email:${email}`] : []), ...(phone ? [`phone:${phone}`] : [])];
      const created = await withIdentifierLocks(ids, async () => {
        await assertFree(email, phone);
        const t = now();
        const row: UserRow = {
          id: newId(),
          email,
          emailVerifiedAt: input.email_verified ? t : null,
          phoneNumber: phone,
          phoneNumberVerifiedAt: input.phone_number_verified ? t : null,
          password,
          signupMethods: input.signup_method,
          givenName: input.given_name ?? null,
          familyName: input.family_name ?? null,
          middleName: input.middle_name ?? null,
          nickname: input.nickname ?? null,
          preferredUsername: input.preferred_username ?? null,
          gender: input.gender ?? null,
          birthdate: input.birthdate ?? null,
          picture: input.picture ?? null,
          roles: joinList(input.roles),
          createdAt: t,
          updatedAt: t,
          revokedTimestamp: input.revoked ? t : null,
          isMultiFactorAuthEnabled: input.is_multi_factor_auth_enabled ?? null,
          hasSkippedMfaSetupAt: null,
          mfaLockedAt: null,
          enrolledMfaMethods: '',
          appData,
          search: '',
        };
        row.search = searchText(row);
        const em = storage.em();
        em.create(UserEntity, row as never);
        const proof =
          options.proveEmail && email
            ? proofOf(em, { identifier: SIGNUP_IDENTIFIER, email, userId: row.id, ...options.proveEmail })
            : null;
        await em.flush();
        return { user: toRecord(row), proof };
      });
      if (created.proof) await handOverVerification(hooks, logger, created.proof.row, created.proof.token);
      return created.user;
    },

    async update(id, patch: UserPatch, options: UpdateOptions = {}) {
      const appData = patch.app_data !== undefined ? appDataText(patch.app_data) : undefined;
      const email = patch.email === undefined ? undefined : patch.email === '' ? null : normalizeEmail(patch.email);
      const phone =
        patch.phone_number === undefined
          ? undefined
          : patch.phone_number === ''
            ? null
            : normalizePhone(patch.phone_number);
      const password = patch.password !== undefined ? await hash(patch.password) : undefined;
      // The user's own lock too: two updates of one user read the row and write what they
      // changed, so without it one clearing the email and another the phone number each saw the
      // other still there and left a user nobody can sign in as (review finding, PostgreSQL and
      // MariaDB), and the search text was written from a row missing the other's change.
      const ids = [`id:${id}`, ...(email ? [`email:${email}`] : []), ...(phone ? [`phone:${phone}`] : [])];
      const result = await withIdentifierLocks(ids, async () => {
        const em = storage.em();
        const row = (await em.findOne(UserEntity, { id } as never)) as UserRow | null;
        // Exactly this id (MySQL's collation would match another case: see findOne).
        if (!row || row.id !== id) throw notFound('user not found');
        const before = toRecord(row);
        const clearing = email === null || phone === null;
        if (
          clearing &&
          !(email === undefined ? row.email : email) &&
          !(phone === undefined ? row.phoneNumber : phone)
        ) {
          throw invalidArgument('a user needs an email address or a phone number');
        }
        // Verified is said of an address: with none, the flag would stand for nothing and be
        // carried to whatever address is set later (review finding).
        if (patch.email_verified === true && !(email === undefined ? row.email : email)) {
          throw invalidArgument('a user without an email address cannot have it verified');
        }
        if (patch.phone_number_verified === true && !(phone === undefined ? row.phoneNumber : phone)) {
          throw invalidArgument('a user without a phone number cannot have it verified');
        }
        await assertFree(email ?? null, phone ?? null, id);
        const t = now();
        if (email !== undefined && email !== row.email) {
          row.email = email;
          row.emailVerifiedAt = null;
        }
        if (phone !== undefined && phone !== row.phoneNumber) {
          row.phoneNumber = phone;
          row.phoneNumberVerifiedAt = null;
        }
        if (patch.email_verified !== undefined)
          row.emailVerifiedAt = patch.email_verified ? (row.emailVerifiedAt ?? t) : null;
        if (patch.phone_number_verified !== undefined) {
          row.phoneNumberVerifiedAt = patch.phone_number_verified ? (row.phoneNumberVerifiedAt ?? t) : null;
        }
        if (password !== undefined) row.password = password;
        for (const [key, column] of Object.entries(PROFILE_COLUMNS) as [
          keyof typeof PROFILE_COLUMNS,
          (typeof PROFILE_COLUMNS)[keyof typeof PROFILE_COLUMNS],
        ][]) {
          const v = patch[key];
          if (v !== undefined) row[column] = v === '' ? null : v;
        }
        if (appData !== undefined) row.appData = appData;
        if (patch.is_multi_factor_auth_enabled !== undefined)
          row.isMultiFactorAuthEnabled = patch.is_multi_factor_auth_enabled;
        if (patch.roles !== undefined) row.roles = joinList(patch.roles);
        if (patch.signup_methods !== undefined) row.signupMethods = joinList(patch.signup_methods);
        if (patch.revoked_timestamp !== undefined) row.revokedTimestamp = patch.revoked_timestamp;
        if (patch.has_skipped_mfa_setup_at !== undefined) row.hasSkippedMfaSetupAt = patch.has_skipped_mfa_setup_at;
        if (patch.mfa_locked_at !== undefined) row.mfaLockedAt = patch.mfa_locked_at;
        if (patch.enrolled_mfa_methods !== undefined) row.enrolledMfaMethods = joinList(patch.enrolled_mfa_methods);
        row.updatedAt = t;
        row.search = searchText(row);
        const unproven = row.email !== null && row.email !== before.email && row.emailVerifiedAt === null;
        const proof =
          options.proveNewEmail && unproven
            ? proofOf(em, { identifier: UPDATE_EMAIL_IDENTIFIER, email: row.email as string, userId: id })
            : null;
        byId.delete(id);
        await em.flush();
        byId.delete(id);
        return { before, after: toRecord(row), proof };
      });
      if (result.proof) await handOverVerification(hooks, logger, result.proof.row, result.proof.token);
      return { before: result.before, after: result.after, proofRequested: result.proof !== null };
    },

    async setAccess(id, revokedAt) {
      return withIdentifierLocks([`id:${id}`], async () => {
        const em = storage.em();
        const row = (await em.findOne(UserEntity, { id } as never)) as UserRow | null;
        if (!row || row.id !== id) throw notFound('user not found');
        if ((row.revokedTimestamp === null) === (revokedAt === null)) return { user: toRecord(row), changed: false };
        row.revokedTimestamp = revokedAt;
        row.updatedAt = now();
        byId.delete(id);
        await em.flush();
        byId.delete(id);
        return { user: toRecord(row), changed: true };
      });
    },

    async delete(id) {
      const em = storage.em();
      const row = (await em.findOne(UserEntity, { id } as never)) as UserRow | null;
      if (!row) throw notFound('user not found');
      // The `user.deleted` hook runs before the row goes (other plugins remove their data and
      // may veto by throwing: the user then stays, and the call can be retried) and once more
      // after it. The second run is for a sign-in that read the user after the first run ended
      // its sessions and before the row went: its session escaped the first end and its tokens
      // stayed valid for a deleted user (review finding). After the row is gone a sign-in finds
      // no user, or read it before the second end was marked and withdraws its session
      // (sessions/service.ts create, `readAt`), or stored it before that end, which deletes it.
      // The subscribers are idempotent.
      const user = toRecord(row);
      await hooks.run('user.deleted', { user });
      // SPEC.md Admin API: delete_user also removes the user's verification data.
      await verifications.deleteForUser(user);
      await memory.delete(failuresKey(id));
      const deleted = await em.nativeDelete(UserEntity, { id } as never);
      byId.delete(id);
      await hooks.run('user.deleted', { user });
      // Another deletion took the row first: it reports the deletion (review finding: both
      // emitted `user.deleted`, so webhooks saw one user deleted twice).
      if (deleted === 0) throw notFound('user not found');
    },

    async list({ page, limit, query }: UserListQuery) {
      const em = storage.em();
      const q = (query ?? '').trim().toLowerCase();
      const offset = (page - 1) * limit;
      const order = { orderBy: { createdAt: 'desc', id: 'desc' } as never };
      /** The page of rows `where` matches, counted by the database. */
      const counted = async (where: never) => {
        const [rows, total] = await em.findAndCount(UserEntity, where, { ...order, limit, offset });
        return { users: (rows as unknown as UserRow[]).map(toRecord), total };
      };
      const inFields = (r: UserRow) =>
        [r.id, r.email, r.givenName, r.familyName, r.nickname].some(
          (field) => !!field && field.toLowerCase().includes(q),
        );
      /** The rows `where` matches that hold the query in one of the fields, paged in memory. */
      const filtered = async (where: never) => {
        const found = ((await em.find(UserEntity, where, order)) as unknown as UserRow[]).filter(inFields);
        return { users: found.slice(offset, offset + limit).map(toRecord), total: found.length };
      };
      if (!q) return counted({} as never);
      if (!storage.isSql) {
        // MongoDB has no LIKE (MikroORM passes `$like` through, and the server refuses the
        // unknown operator: a 500 for any query there, review finding): the search text is
        // matched by a regular expression with every character of the query escaped, so it is a
        // literal substring. A query holding a newline is checked field by field, as below.
        const where = { search: new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) } as never;
        return q.includes('\n') ? filtered(where) : counted(where);
      }
      // On SQL databases the substring is found by its position (instr, strpos): every character
      // of the query is literal, so `_` or `%` no longer matched every row, which the query then
      // loaded whole to filter in memory (review finding). A query holding a newline, which
      // joins the fields in the search column, still takes the path below. So does one holding
      // `?`: MikroORM writes a raw fragment's values into its SQL text, where the driver then
      // took that `?` for a placeholder (a 500 on SQLite and MariaDB, wrong rows on PostgreSQL:
      // review finding); the path below binds the query as an ordinary value.
      const position = positionSql(storage.type);
      const byPosition = (text: string) => ({ [raw(position!, [text])]: { $gt: 0 } }) as never;
      if (position && !q.includes('\n') && !q.includes('?')) return counted(byPosition(q));
      // A query holding a newline is matched field by field in memory, over the rows holding its
      // longest newline-free piece: with `_` or `%` in it, the LIKE below matched every row and
      // all were loaded (review finding).
      const piece = q.split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
      if (position && piece.length > 0 && !piece.includes('?')) return filtered(byPosition(piece));
      // `%` and `_` are LIKE wildcards and SQLite has no default escape character: search with
      // them as single-character wildcards (a superset), then keep exact substring matches. The
      // search column joins the fields with a newline, so a query holding one could match across
      // two fields: such a query is checked field by field too.
      const pattern = `%${q.replace(/[%_\\]/g, '_')}%`;
      const exact = !/[%_\\\n]/.test(q);
      // MySQL and MariaDB compare text under the column's collation (utf8mb4_general_ci), which
      // also folds accents: `jose` found `José` there and not on the other databases (review
      // finding). The column holds lowercased text already, so a binary comparison is the
      // case-insensitive substring match everywhere.
      const where = (
        binaryLike ? { [raw('search collate utf8mb4_bin')]: { $like: pattern } } : { search: { $like: pattern } }
      ) as never;
      return exact ? counted(where) : filtered(where);
    },

    async verifyPassword(user, password, unknownAs): Promise<PasswordCheck> {
      // An identifier with no account fails and locks as an account would, so a 429 after five
      // tries does not tell that the account exists (its key is the identifier's digest; the
      // caller names it in its normalized form, so every spelling of one identifier shares a
      // count, as the spellings of a real account's do). An account without a password (made by
      // a magic link, say) counts under its id like any other: it never locked before, which
      // told it apart from an unknown identifier (review finding). Both hash a decoy, the same
      // work as a real check, and pass the same gate below: a burst of 20 wrong guesses hashed
      // all 20 for an unknown email and only 5 for an account, and the burst's time told them
      // apart every time (review finding).
      const key =
        !user.password && unknownAs !== undefined
          ? `unknown:${createHash('sha256').update(unknownAs.toLowerCase()).digest('base64url')}`
          : user.id;
      // At most LOCKOUT_FAILURES - (failures so far) hashes of one key run at once here, so a
      // burst of parallel guesses gets no more checks than guesses one after another would
      // (counting only after each hash let a whole burst through, the right password among
      // them). Others wait for those to settle, woken one at a time (hash-gate.ts): a fifth
      // failure locks and refuses them unhashed; a success clears the count and they go on. The
      // in-flight count is this process's (exact, no round trip); failures and the lock are
      // shared by every node, so a burst spread over n nodes gets at most n times the allowance
      // before the lock holds.
      const entry = await gate.enter(key, () => failuresOf(key), Date.now() + SETTLE_MS);
      if (typeof entry === 'string') return entry;
      const { failures } = entry;
      let ok: boolean;
      try {
        ok = user.password
          ? await verifyHash(user.password, password)
          : (await verifyHash(await decoyHash(), password), false);
      } catch (err) {
        gate.leave(key);
        throw err;
      }
      if (ok) {
        // A success clears the count, before the waiters are woken, so they see what it leaves.
        // Failures of attempts that ran beside this one, here or on another node, may have been
        // counted while it hashed (a success that read none before its hash left them standing,
        // and one more wrong guess then locked: review finding), so the count is read again; the
        // store write happens only when there is a count.
        try {
          if (failures > 0 || (await failuresOf(key)) > 0) await memory.delete(failuresKey(key));
          return 'ok';
        } finally {
          gate.leave(key);
        }
      }
      // Counted before this attempt leaves the in-flight count, so it is never in neither.
      let locks: boolean;
      try {
        locks = await recordFailure(key);
      } finally {
        gate.leave(key);
      }
      if (locks) return 'locked';
      return user.password ? 'wrong' : 'no_password';
    },

    toUserDto(user): UserDto {
      const dto: UserDto = {
        id: user.id,
        email_verified: user.emailVerifiedAt !== null,
        signup_methods: user.signupMethods.join(','),
        phone_number_verified: user.phoneNumberVerifiedAt !== null,
        roles: user.roles,
        created_at: user.createdAt,
        updated_at: user.updatedAt,
        enrolled_mfa_methods: user.enrolledMfaMethods ?? [],
      };
      if (user.email !== null) dto.email = user.email;
      if (user.phoneNumber !== null) dto.phone_number = user.phoneNumber;
      if (user.givenName !== null) dto.given_name = user.givenName;
      if (user.familyName !== null) dto.family_name = user.familyName;
      if (user.middleName !== null) dto.middle_name = user.middleName;
      if (user.nickname !== null) dto.nickname = user.nickname;
      if (user.preferredUsername !== null) dto.preferred_username = user.preferredUsername;
      if (user.gender !== null) dto.gender = user.gender;
      if (user.birthdate !== null) dto.birthdate = user.birthdate;
      if (user.picture !== null) dto.picture = user.picture;
      if (user.revokedTimestamp !== null) dto.revoked_timestamp = user.revokedTimestamp;
      if (user.isMultiFactorAuthEnabled !== null) dto.is_multi_factor_auth_enabled = user.isMultiFactorAuthEnabled;
      if (user.hasSkippedMfaSetupAt !== null) dto.has_skipped_mfa_setup_at = user.hasSkippedMfaSetupAt;
      if (user.mfaLockedAt !== null) dto.mfa_locked_at = user.mfaLockedAt;
      if (user.appData !== null) dto.app_data = user.appData;
      return dto;
    },
  };
  return service;
}
