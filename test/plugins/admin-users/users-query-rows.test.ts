/**
 * An admin users query holding a newline (matched field by field in memory, since the search
 * column joins the fields with newlines) loads only the rows that hold its longest newline-free
 * piece, not the whole table (the users service's `list`: with `_` or `%` in it, a LIKE would
 * match every row and load them all). Rows are counted as the database hands them
 * to the service.
 */
import t from 'tap';
import type { EntityManager } from '@mikro-orm/core';
import { bootAccounts, call, signup } from '../accounts/helpers.js';

const tk = await bootAccounts();
t.teardown(() => tk.close());
const k = tk.kernel;

let loaded = 0;
const storage = k.storage as { em(): EntityManager };
const openEm = storage.em.bind(storage);
storage.em = () => {
  const em = openEm();
  const find = em.find.bind(em) as (...args: unknown[]) => Promise<unknown[]>;
  (em as unknown as { find: typeof find }).find = async (...args) => {
    const rows = await find(...args);
    loaded += rows.length;
    return rows;
  };
  return em;
};

t.test('a query with a newline loads the rows holding its longest piece, not every row', async (t) => {
  for (let i = 0; i < 30; i++) await signup(k, `bulk_${i}@example.com`, { nickname: `bulk_${i}` });
  await signup(k, 'needle@example.com', { given_name: 'Need_le', family_name: 'Tail' });
  loaded = 0;
  const wide = await call<{ users: unknown[]; pagination: { total: number } }>(
    k,
    '_users',
    { query: 'bulk_' },
    { admin: true },
  );
  t.equal(wide.pagination.total, 30, 'the table holds 30 bulk users (counted by the database)');
  loaded = 0;
  const across = await call<{ users: unknown[]; pagination: { total: number } }>(
    k,
    '_users',
    { query: 'need_le\ntail' },
    { admin: true },
  );
  t.equal(across.pagination.total, 0, 'a match across two fields is no match');
  t.ok(loaded <= 1, `only the row holding "need_le" was loaded (${loaded} of 31)`);
  loaded = 0;
  const within = await call<{ pagination: { total: number } }>(k, '_users', { query: 'bulk_1\nx' }, { admin: true });
  t.equal(within.pagination.total, 0, 'no field holds both');
  t.ok(loaded <= 11, `only rows holding "bulk_1" (bulk_1, bulk_10 to bulk_19) were loaded (${loaded} of 31)`);
  // Wildcards only: as a LIKE pattern this matches every row; its pieces match none.
  loaded = 0;
  const wild = await call<{ pagination: { total: number } }>(k, '_users', { query: '%%%%%%%%\n_' }, { admin: true });
  t.equal(wild.pagination.total, 0, 'no field holds the query');
  t.equal(loaded, 0, 'and no row was loaded to find that out');
});
