/**
 * The users plugin: the user table and the `users` service (records, uniqueness, password hashing
 * and lockout, the User type). Login methods (password, magic link, social, SCIM) build on it.
 */
import { availableParallelism } from 'node:os';
import { definePlugin } from '../../core/plugin.js';
import { dropStaleUniqueConstraints } from '../../storage/index.js';
import { ROLES_COLUMN_LENGTH, USERS_TABLE, UserEntity } from './entities.js';
import { createHashWorkers } from './hash-workers.js';
import { createUsersService } from './service.js';
import { VerificationEntity } from './verification.js';
import type { UsersService } from './types.js';

export type { UsersService, UserRecord, UserDto, UserPatch, WithinUserWrite } from './types.js';
export type { NewVerification, VerificationRecord, VerificationRequestsService } from './verification.js';
export type { VerificationRequestedPayload } from './email-verification.js';
export { SIGNUP_IDENTIFIER, UPDATE_EMAIL_IDENTIFIER } from './email-verification.js';
export { UserSchema, profileInput } from './schemas.js';

export const usersPlugin = definePlugin<UsersService>({
  name: 'users',
  description: 'User records, roles, password hashing and lockout.',
  flags: [
    { name: 'roles', type: 'list', default: ['user'], description: 'Roles users may have.' },
    {
      name: 'default-roles',
      type: 'list',
      default: ['user'],
      description: 'Roles given at signup when none are asked for.',
    },
    {
      name: 'protected-roles',
      type: 'list',
      default: [],
      description: 'Roles that cannot be chosen at signup (an admin may grant them).',
    },
    {
      name: 'enable-strong-password',
      type: 'boolean',
      default: false,
      description: 'Require upper, lower, digit and symbol in passwords.',
    },
    {
      name: 'password-hash-threads',
      type: 'number',
      default: 0,
      description: 'Threads that hash passwords (0: one per core).',
    },
  ],
  validateConfig: (config) => {
    const allowed = new Set([...config.list('roles'), ...config.list('protected-roles')]);
    for (const r of [...config.list('roles'), ...config.list('protected-roles')]) {
      if (!/^[A-Za-z0-9_:.-]{1,64}$/.test(r))
        return `role "${r}" may only contain letters, digits, _ : . - (at most 64)`;
    }
    // A user may hold every allowed role at once, stored joined in one column: a set that does
    // not fit would fail the admin's update with a database error (a 500 on PostgreSQL and
    // MariaDB).
    if ([...allowed].join(',').length > ROLES_COLUMN_LENGTH)
      return `--roles and --protected-roles together are longer than the ${ROLES_COLUMN_LENGTH} characters a user's roles are stored in (joined by commas)`;
    const stray = config.list('default-roles').find((r) => !allowed.has(r));
    return stray ? `--default-roles contains "${stray}", which is not in --roles` : undefined;
  },
  entities: [UserEntity, VerificationEntity],
  meta: (config) => ({ is_strong_password_enabled: config.bool('enable-strong-password') }),
  async setup({ config, storage, memory, hooks, logger, onClose }) {
    // Uniqueness lives in the application now; an older schema's UNIQUE
    // rules on these columns would turn a race into a 500 instead of the contract's error.
    const dropped = await dropStaleUniqueConstraints(storage, USERS_TABLE, ['email', 'phone_number']);
    if (dropped.length > 0) logger.info({ table: USERS_TABLE, dropped }, 'dropped stale unique constraints');
    // One hashing thread per core. Each Argon2id hash walks a 19 MiB block, so two hashes sharing
    // a core evict each other's cache lines at every switch: on a 2-core machine (2026-11-22,
    // logins from wrk, 8 in flight, 15 s runs in turn) 2 threads did 133-135 logins/s at ~13.1 ms
    // of hash CPU per login, 4 threads 124-129 logins/s at ~14.0 ms. Jobs queue in the workers
    // (hash-workers.ts), so fewer threads leave no core idle while logins wait.
    const threads = config.number('password-hash-threads', 0);
    const hashers = createHashWorkers(threads > 0 ? Math.min(threads, 64) : availableParallelism());
    onClose(() => hashers.close());
    return createUsersService({ config, storage, memory, hooks, logger, hashers });
  },
});
