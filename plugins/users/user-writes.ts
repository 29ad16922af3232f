/** Writes of user records: create, update, access (revoke and restore) and delete. */
import { invalidArgument, notFound, ServiceError } from '../../core/errors.js';
import type { HookBus } from '../../core/hooks.js';
import type { Logger } from '../../core/logger.js';
import type { Storage } from '../../core/storage.js';
import { openUnitOfWork } from '../../core/unit-of-work.js';
import { newId } from '../../storage/index.js';
import { handOverVerification, SIGNUP_IDENTIFIER, UPDATE_EMAIL_IDENTIFIER } from './email-verification.js';
import { UserEntity, type UserRow } from './entities.js';
import type { IdentifierLocks } from './identifier-locks.js';
import type { PasswordChecks } from './password-checks.js';
import { joinList, normalizeEmail, normalizePhone } from './policy.js';
import { appDataText, now, PROFILE_COLUMNS, searchText, toRecord } from './records.js';
import type { CreateOptions, NewUser, UpdateOptions, UserPatch, UsersService } from './types.js';
import type { UserReads } from './user-reads.js';
import {
  newVerificationRow,
  VerificationEntity,
  type NewVerification,
  type VerificationRecord,
  type VerificationRequestsService,
} from './verification.js';

export const DUPLICATE_USER = 'user with given email already exists';

export interface UserWritesDeps {
  storage: Storage;
  hooks: HookBus;
  logger: Logger;
  reads: UserReads;
  locks: IdentifierLocks;
  passwords: PasswordChecks;
  verifications: VerificationRequestsService;
  hash: (password: string) => Promise<string>;
}

/** The name a mail greets the user by ('' when the profile has none). */
const displayName = (user: { givenName: string | null; familyName: string | null }): string =>
  [user.givenName, user.familyName].filter(Boolean).join(' ');

/**
 * A verification request added to the unit of work that writes its address, so that one commit
 * stores both or neither (email-verification.ts). Returns it with the plain token, for the mail.
 */
function proofOf(em: ReturnType<Storage['em']>, input: NewVerification): { row: VerificationRecord; token: string } {
  const proof = newVerificationRow(input);
  em.create(VerificationEntity, proof.row as never);
  return proof;
}

export function createUserWrites({
  storage,
  hooks,
  logger,
  reads,
  locks: withIdentifierLocks,
  passwords,
  verifications,
  hash,
}: UserWritesDeps): Pick<UsersService, 'create' | 'update' | 'setAccess' | 'delete'> {
  async function assertFree(email: string | null, phone: string | null, exceptId?: string): Promise<void> {
    if (email) {
      const holder = await reads.findOne('email', email);
      if (holder && holder.id !== exceptId) throw new ServiceError('already_exists', DUPLICATE_USER);
    }
    if (phone) {
      const holder = await reads.findOne('phoneNumber', phone);
      if (holder && holder.id !== exceptId) throw new ServiceError('already_exists', DUPLICATE_USER);
    }
  }

  return {
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
        // One commit stores the user, its verification request and mail, and its events' rows.
        const unit = openUnitOfWork(em, (err) => logger.error({ err }, 'after-commit step failed'));
        const user = toRecord(row);
        if (proof) await handOverVerification(hooks, unit, proof.row, proof.token, displayName(user));
        await options.within?.(unit, user);
        await unit.commit();
        return user;
      });
      return created;
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
      // changed, so without it one clearing the email and another the phone number could each
      // see the other still there and leave a user nobody can sign in as, and the search text
      // could be written from a row missing the other's change.
      const ids = [`id:${id}`, ...(email ? [`email:${email}`] : []), ...(phone ? [`phone:${phone}`] : [])];
      const result = await withIdentifierLocks(ids, async () => {
        const em = storage.em();
        const row = (await em.findOne(UserEntity, { id } as never)) as UserRow | null;
        // Exactly this id (MySQL's collation would match another case: see user-reads.ts).
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
        // carried to whatever address is set later.
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
        const after = toRecord(row);
        const unit = openUnitOfWork(em, (err) => logger.error({ err }, 'after-commit step failed'));
        if (proof) await handOverVerification(hooks, unit, proof.row, proof.token, displayName(after));
        reads.forget(id);
        await unit.commit();
        reads.forget(id);
        return { before, after, proofRequested: proof !== null };
      });
      return result;
    },

    async setAccess(id, revokedAt, options = {}) {
      return withIdentifierLocks([`id:${id}`], async () => {
        const em = storage.em();
        const row = (await em.findOne(UserEntity, { id } as never)) as UserRow | null;
        if (!row || row.id !== id) throw notFound('user not found');
        if ((row.revokedTimestamp === null) === (revokedAt === null)) return { user: toRecord(row), changed: false };
        row.revokedTimestamp = revokedAt;
        row.updatedAt = now();
        // The change and its event's outbox rows are stored by one commit.
        const unit = openUnitOfWork(em, (err) => logger.error({ err }, 'after-commit step failed'));
        await options.within?.(unit, toRecord(row));
        reads.forget(id);
        await unit.commit();
        reads.forget(id);
        return { user: toRecord(row), changed: true };
      });
    },

    async delete(id, options = {}) {
      const em = storage.em();
      const row = (await em.findOne(UserEntity, { id } as never)) as UserRow | null;
      if (!row) throw notFound('user not found');
      // The `user.deleted` hook runs before the row goes (other plugins remove their data and
      // may veto by throwing: the user then stays, and the call can be retried) and once more
      // after it. The second run is for a sign-in that read the user after the first run ended
      // its sessions and before the row went: its session escaped the first end, and its tokens
      // would stay valid for a deleted user. After the row is gone a sign-in finds no user, or
      // read it before the second end was marked and withdraws its session (sessions/service.ts
      // create, `readAt`), or stored it before that end, which deletes it. The subscribers are
      // idempotent.
      const user = toRecord(row);
      await hooks.run('user.deleted', { user });
      // delete_user also removes the user's verification data.
      await verifications.deleteForUser(user);
      await passwords.forgetFailures(id);
      // The row's deletion and its event's outbox rows are stored by one commit; the rows are
      // discarded when another deletion took the row first.
      const unit = openUnitOfWork(em, (err) => logger.error({ err }, 'after-commit step failed'));
      await options.within?.(unit, user);
      const taken = notFound('user not found');
      const deleted = await unit
        .commit(async (tx) => {
          if ((await tx.nativeDelete(UserEntity, { id } as never)) === 0) throw taken;
        })
        .then(
          () => true,
          (err: unknown) => {
            if (err === taken) return false;
            throw err;
          },
        )
        .finally(() => reads.forget(id));
      await hooks.run('user.deleted', { user });
      // Another deletion took the row first: only one of them reports the deletion (webhooks see
      // one user deleted once).
      if (!deleted) throw taken;
    },
  };
}
