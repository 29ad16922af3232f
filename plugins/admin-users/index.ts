/** The admin-users plugin: user management for the super-admin (`_users`, `_user`, ...). */
import { definePlugin } from '../../core/plugin.js';
import { adminUserOperations } from './operations.js';
import type { UserRecord } from '../users/index.js';

declare module '../../core/hooks.js' {
  interface HookPayloads {
    /** `_update_user` with `reset_mfa`: MFA plugins remove every factor and credential of the user. */
    'user.mfaReset': { user: UserRecord };
  }
}

export const adminUsersPlugin = definePlugin({
  name: 'admin-users',
  description: 'Admin user management: list, read, update, delete, revoke and enable access.',
  dependsOn: ['admin', 'users', 'sessions'],
  events: ['user.deleted', 'user.access_revoked', 'user.access_enabled'],
  operations: adminUserOperations,
});
