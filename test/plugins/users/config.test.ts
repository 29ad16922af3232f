/** The users plugin's start-up checks on the role flags. */
import t from 'tap';
import { Config } from '../../../core/config.js';
import { ROLES_COLUMN_LENGTH } from '../../../plugins/users/entities.js';
import { usersPlugin } from '../../../plugins/users/index.js';

const check = (flags: Record<string, string>) => usersPlugin.validateConfig?.(new Config(flags));
/** `n` distinct roles of 64 characters. */
const roles = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(63, '0')}`);

t.test('role names', async (t) => {
  t.equal(check({ roles: 'user,admin', 'default-roles': 'user' }), undefined);
  t.match(check({ roles: 'user,has space' }), /role "has space" may only contain/);
  t.equal(
    check({ roles: 'user', 'default-roles': 'admin' }),
    '--default-roles contains "admin", which is not in --roles',
  );
});

t.test("every allowed role at once fits the column a user's roles are stored in", async (t) => {
  // 15 roles of 64 characters and 14 commas: 974; 16 of them: 1039.
  t.equal(check({ roles: roles(15, 'r').join(','), 'default-roles': roles(1, 'r')[0]! }), undefined, '974 characters');
  const over = check({
    roles: roles(8, 'r').join(','),
    'protected-roles': roles(8, 'p').join(','),
    'default-roles': roles(1, 'r')[0]!,
  });
  t.match(
    over,
    new RegExp(`longer than the ${ROLES_COLUMN_LENGTH} characters`),
    'roles and protected roles count together',
  );
  t.equal(
    check({ roles: [...roles(15, 'r'), ...roles(15, 'r')].join(','), 'default-roles': roles(1, 'r')[0]! }),
    undefined,
    'a role named twice counts once',
  );
});
