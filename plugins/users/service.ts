/**
 * The users service: records, uniqueness of email and phone (identifier-locks.ts), password
 * checks with lockout (password-checks.ts). This file puts the parts together.
 */
import type { Config } from '../../core/config.js';
import type { HookBus } from '../../core/hooks.js';
import type { Logger } from '../../core/logger.js';
import type { MemoryStore } from '../../core/memory-store.js';
import type { Storage } from '../../core/storage.js';
import type { HashWorkers } from './hash-workers.js';
import { identifierLocks } from './identifier-locks.js';
import { hashPassword, PRODUCTION_PARAMS, verifyPassword } from './password.js';
import { createPasswordChecks } from './password-checks.js';
import { checkPasswordPolicy, normalizeEmail, normalizePhone } from './policy.js';
import { toUserDto } from './records.js';
import type { UsersService } from './types.js';
import { createUserReads } from './user-reads.js';
import { listUsers } from './user-search.js';
import { createUserWrites } from './user-writes.js';
import { createVerificationRequests } from './verification.js';

export { DUPLICATE_USER } from './user-writes.js';
export { LOCKOUT_FAILURES, LOCKOUT_MS } from './password-checks.js';
export { MAX_APP_DATA_BYTES } from './records.js';

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

  const reads = createUserReads(storage);
  const passwords = createPasswordChecks(memory, hash, verifyHash);
  const verifications = createVerificationRequests(storage);
  const writes = createUserWrites({
    storage,
    hooks,
    logger,
    reads,
    locks: identifierLocks(memory),
    passwords,
    verifications,
    hash,
  });

  return {
    roles,
    verifications,
    normalizeEmail,
    normalizePhone,
    checkPasswordPolicy: (password) => checkPasswordPolicy(password, strong),
    hashPassword: hash,
    cachedById: reads.cachedById,
    findById: (id, options = {}) => reads.findById(id, options.fresh === true),
    findByEmail: async (email) => {
      let e: string;
      try {
        e = normalizeEmail(email);
      } catch {
        return null;
      }
      return reads.findKept('email', e);
    },
    findByPhone: async (phone) => {
      let p: string;
      try {
        p = normalizePhone(phone);
      } catch {
        return null;
      }
      return reads.findKept('phoneNumber', p);
    },
    ...writes,
    list: (query) => listUsers(storage, query),
    verifyPassword: passwords.verifyPassword,
    toUserDto,
  };
}
