/**
 * The account scenarios on every reachable database (SQLite, PostgreSQL, MariaDB) and with the
 * database and Redis memory stores; and the startup drop of the stale unique constraints
 * on `email` and `phone_number` (uniqueness moved to the application) without losing rows.
 */
import t, { type Test } from 'tap';
import type { Kernel } from '../../../core/kernel.js';
import { uniqueRules } from '../../../storage/index.js';
import { databaseTargets, redisAvailable, type DbTarget } from '../../helpers/databases.js';
import type { TestMemoryBackend } from '../../helpers/kernel.js';
import { bootAccounts, call, PASSWORD, signup, type Auth } from './helpers.js';

async function scenario(t: Test, kernel: Kernel): Promise<void> {
  const a = await signup(kernel, 'Scenario@Example.com', { nickname: 'Scenic', is_multi_factor_auth_enabled: true });
  // Lookups read plain rows on SQL databases: the record still has JS numbers and booleans.
  const byEmail = await kernel.service('users').findByEmail('scenario@example.com');
  t.equal(typeof byEmail?.createdAt, 'number', 'createdAt is a number');
  t.equal(byEmail?.isMultiFactorAuthEnabled, true, 'booleans stay booleans');
  t.equal(byEmail?.emailVerifiedAt, null);
  t.same(byEmail?.roles, ['user']);
  await t.rejects(signup(kernel, 'scenario@example.com'), { message: 'user with given email already exists' });
  // Bounds count characters (core/character-limits.ts), and so do the columns: 256 emoji, 1 KiB
  // of UTF-8, fit a 256-character name on every database.
  const emoji = '\u{1F600}'.repeat(256);
  const wide = await signup(kernel, 'emoji@example.com', { nickname: emoji });
  t.equal(
    (await kernel.service('users').findById(wide.user.id, { fresh: true }))?.nickname,
    emoji,
    'a 256-emoji nickname is stored whole',
  );
  const race = await Promise.allSettled(Array.from({ length: 4 }, () => signup(kernel, 'race@example.com')));
  t.equal(race.filter((r) => r.status === 'fulfilled').length, 1, 'one of four concurrent signups wins');
  for (const r of race)
    if (r.status === 'rejected') t.match(r.reason, { message: 'user with given email already exists' });
  // Two admins at once, one clearing the email and one the phone number: one of them must be
  // refused, or the user is left with no way to sign in (on PostgreSQL and MariaDB too).
  const both = await signup(kernel, 'both@example.com', { phone_number: '+15550001234' });
  const clears = await Promise.allSettled([
    call(kernel, '_update_user', { id: both.user.id, email: '' }, { admin: true }),
    call(kernel, '_update_user', { id: both.user.id, phone_number: '' }, { admin: true }),
  ]);
  t.equal(clears.filter((r) => r.status === 'fulfilled').length, 1, 'one of two concurrent clears wins');
  for (const r of clears)
    if (r.status === 'rejected')
      t.match(r.reason, { code: 'invalid_argument', message: 'a user needs an email address or a phone number' });
  const left = await call<{ email?: string | null; phone_number?: string | null }>(
    kernel,
    '_user',
    { id: both.user.id },
    { admin: true },
  );
  t.ok(left.email || left.phone_number, 'the user keeps one way to sign in');
  // Two admins revoking, then deleting, one user at once: each change is reported once
  // (not by both calls, on PostgreSQL and MariaDB too).
  const events: string[] = [];
  for (const name of ['user.access_revoked', 'user.deleted'] as const)
    kernel.events.on(name, () => void events.push(name));
  const twice = await signup(kernel, 'twice@example.com');
  await Promise.all([0, 1].map(() => call(kernel, '_revoke_access', { user_id: twice.user.id }, { admin: true })));
  const deletes = await Promise.allSettled(
    [0, 1].map(() => call(kernel, '_delete_user', { id: twice.user.id }, { admin: true })),
  );
  t.equal(deletes.filter((r) => r.status === 'fulfilled').length, 1, 'one of two concurrent deletions succeeds');
  for (const r of deletes) if (r.status === 'rejected') t.match(r.reason, { code: 'not_found' });
  await kernel.events.drain();
  t.same(events, ['user.access_revoked', 'user.deleted'], 'one event for each change');
  const login = await call<Auth>(kernel, 'login', {
    email: 'scenario@example.com',
    password: PASSWORD,
    scope: ['openid', 'offline_access'],
  });
  t.equal(
    (await call<{ email: string }>(kernel, 'profile', undefined, { bearer: login.access_token })).email,
    'scenario@example.com',
  );
  const first = await kernel.service('tokens').refresh(login.refresh_token!);
  // Its successor used, a spent token is reuse even within the reuse grace.
  const next = await kernel.service('tokens').refresh(first.tokens.refresh_token!);
  t.ok(await call(kernel, 'profile', undefined, { bearer: next.tokens.access_token }), 'refreshed access token works');
  await t.rejects(kernel.service('tokens').refresh(login.refresh_token!), 'refresh token is single use');
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: next.tokens.access_token }),
    { code: 'unauthenticated' },
    'reuse revoked the family',
  );
  const again = await call<Auth>(kernel, 'login', { email: 'scenario@example.com', password: PASSWORD });
  await call(kernel, 'logout', undefined, { bearer: again.access_token });
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: again.access_token }),
    { code: 'unauthenticated' },
    'logout is immediate',
  );
  const found = await call<{ users: { id: string }[] }>(kernel, '_users', { query: 'sCeNiC' }, { admin: true });
  t.same(
    found.users.map((u) => u.id),
    [a.user.id],
  );
  // Case folds, accents do not, on every database (MariaDB's default collation folded both).
  const jose = await signup(kernel, 'jose-accent@example.com', { given_name: 'José' });
  const plain = await signup(kernel, 'jose-plain@example.com', { given_name: 'Jose' });
  const accented = await call<{ users: { id: string }[]; pagination: { total: number } }>(
    kernel,
    '_users',
    { query: 'JOSÉ' },
    { admin: true },
  );
  t.same(
    accented.users.map((u) => u.id),
    [jose.user.id],
    'josé finds José only',
  );
  t.equal(accented.pagination.total, 1);
  const bare = await call<{ users: { id: string }[] }>(kernel, '_users', { query: 'jose' }, { admin: true });
  t.same(bare.users.map((u) => u.id).sort(), [jose.user.id, plain.user.id].sort(), 'jose is in both emails');
  // Every character of a query is literal: `_`, `%` and `\` are not wildcards, and the match is
  // found by position in SQL (a `_` must not match every row and load it whole).
  const odd = await signup(kernel, 'odd@example.com', { nickname: 'Per_Cent%Back\\slash' });
  for (const [query, ids] of [
    ['_', [odd.user.id]],
    ['%', [odd.user.id]],
    ['\\', [odd.user.id]],
    ['t%b', [odd.user.id]],
    ['r_c', [odd.user.id]],
    ['rxc', []],
  ] as const) {
    const r = await call<{ users: { id: string }[]; pagination: { total: number } }>(
      kernel,
      '_users',
      { query, pagination: { limit: 1, page: 1 } },
      { admin: true },
    );
    t.same([r.users.map((u) => u.id), r.pagination.total], [ids, ids.length], `query ${JSON.stringify(query)}`);
  }
  // `?` is literal too: written into the SQL text by MikroORM's raw fragment, the driver took it
  // for a placeholder (a 500 on SQLite and MariaDB, wrong rows and no limit on PostgreSQL).
  const asking = await signup(kernel, 'q?x@example.com', { nickname: 'Wh?t' });
  for (const [query, ids] of [
    ['?', [asking.user.id]],
    ['wh?t', [asking.user.id]],
    ['q?x@example.com', [asking.user.id]],
    ['a?', []],
    ['??', []],
  ] as const) {
    const r = await call<{ users: { id: string }[]; pagination: { total: number } }>(
      kernel,
      '_users',
      { query, pagination: { limit: 1, page: 1 } },
      { admin: true },
    );
    t.same([r.users.map((u) => u.id), r.pagination.total], [ids, ids.length], `query ${JSON.stringify(query)}`);
  }
  // A newline joins the fields in the search text: a query holding one matches inside one field
  // only, also with `_` in it, without loading every row to filter.
  const lined = await signup(kernel, 'lined@example.com', { nickname: 'Two_\nLines' });
  for (const [query, ids] of [
    ['o_\nli', [lined.user.id]],
    ['two_\nlines', [lined.user.id]],
    ['example.com\ntwo', []],
    ['_\nx', []],
  ] as const) {
    const r = await call<{ users: { id: string }[]; pagination: { total: number } }>(
      kernel,
      '_users',
      { query, pagination: { limit: 1, page: 1 } },
      { admin: true },
    );
    t.same([r.users.map((u) => u.id), r.pagination.total], [ids, ids.length], `query ${JSON.stringify(query)}`);
  }
  const angstrom = await signup(kernel, 'physicist@example.com', { nickname: 'ÅNGSTRÖM' });
  t.same(
    (await call<{ users: unknown[] }>(kernel, '_users', { query: 'angstrom' }, { admin: true })).users,
    [],
    'angstrom does not find ÅNGSTRÖM',
  );
  const found2 = await call<{ users: { id: string }[] }>(kernel, '_users', { query: 'Ångström' }, { admin: true });
  t.same(
    found2.users.map((u) => u.id),
    [angstrom.user.id],
    'Ångström does, whatever its case',
  );
  // MariaDB's collation ignores case and trailing spaces: an id that only looks like the user's
  // finds it there, and the revoke must not then end sessions under the text given.
  for (const variant of [a.user.id.toUpperCase(), `${a.user.id} `]) {
    await t.rejects(
      call(kernel, '_revoke_access', { user_id: variant }, { admin: true }),
      { code: 'not_found' },
      `revoke_access of ${JSON.stringify(variant)}`,
    );
    await t.rejects(
      call(kernel, '_update_user', { id: variant, roles: ['user'] }, { admin: true }),
      { code: 'not_found' },
      `update_user of ${JSON.stringify(variant)}`,
    );
    await t.rejects(
      call(kernel, '_user', { id: variant }, { admin: true }),
      { code: 'not_found' },
      `user of ${JSON.stringify(variant)}`,
    );
  }
  t.equal((await kernel.service('users').findById(a.user.id))?.revokedTimestamp, null, 'nothing was revoked');
  // app_data up to the bound fits the TEXT column on every database (65,535 bytes on MariaDB).
  const big = { note: 'é'.repeat(32_000) };
  const updated = await call<{ app_data: Record<string, unknown> }>(
    kernel,
    '_update_user',
    { id: a.user.id, app_data: big },
    { admin: true },
  );
  t.same(updated.app_data, big, 'app_data of 64,011 bytes stored and read back');
  await t.rejects(
    call(kernel, '_update_user', { id: a.user.id, app_data: { note: 'é'.repeat(33_000) } }, { admin: true }),
    { code: 'invalid_argument' },
    'past 65,535 bytes: refused, not a database error',
  );
  // A password change keeps the caller's session (sessions.keepOnly on this store) and ends the other.
  const changer = await signup(kernel, 'changer@example.com');
  const other = await call<Auth>(kernel, 'login', { email: 'changer@example.com', password: PASSWORD });
  await call(
    kernel,
    'update_profile',
    { old_password: PASSWORD, new_password: 'Changed-789', confirm_new_password: 'Changed-789' },
    { bearer: changer.access_token },
  );
  t.equal(
    (await call<{ email: string }>(kernel, 'profile', undefined, { bearer: changer.access_token })).email,
    'changer@example.com',
    "the password change kept the caller's session",
  );
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: other.access_token }),
    { code: 'unauthenticated' },
    'and ended the other',
  );
  await call(kernel, '_revoke_access', { user_id: a.user.id }, { admin: true });
  await t.rejects(call(kernel, 'profile', undefined, { bearer: a.access_token }), { code: 'unauthenticated' });
}

const targets = await databaseTargets({ sqlOnly: true });
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));

for (const target of targets) {
  t.test(`${target.name}: account scenario, and stale unique rules dropped at startup`, async (t) => {
    const first = await bootAccounts({}, { database: target, memory: 'process' });
    await signup(first.kernel, 'kept@example.com');
    // An older schema's database-level uniqueness (as a pre-2.x deployment would have).
    await first.kernel.storage
      .em()
      .getConnection()
      .execute('create unique index legacy_users_email on latchkey_users (email)');
    t.ok((await uniqueRules(first.kernel.storage, 'latchkey_users')).length > 0, 'legacy unique index present');
    await first.close();
    const tk = await bootAccounts({}, { database: target, memory: 'process' });
    t.teardown(() => tk.close());
    t.same(await uniqueRules(tk.kernel.storage, 'latchkey_users'), [], 'dropped at boot');
    t.ok(await tk.kernel.service('users').findByEmail('kept@example.com'), 'rows kept');
    await scenario(t, tk.kernel);
  });
}

const memories: TestMemoryBackend[] = ['database', ...((await redisAvailable()) ? (['redis'] as const) : [])];
for (const memory of memories) {
  t.test(`memory store ${memory}: account scenario`, async (t) => {
    const tk = await bootAccounts({}, { memory });
    t.teardown(() => tk.close());
    await scenario(t, tk.kernel);
  });
}

export type { DbTarget };
