/** The admin-users plugin: user management for the super-admin (`_users`, `_user`, ...). */
import { definePlugin } from '../../core/plugin.js';
import { adminUserOperations } from './operations.js';

export const adminUsersPlugin = definePlugin({
  name: 'admin-users',
  description: 'Admin user management: list, read, update, delete, revoke and enable access.',
  dependsOn: ['admin', 'users', 'sessions'],
  events: ['user.deleted', 'user.access_revoked', 'user.access_enabled'],
  operations: adminUserOperations,
});
