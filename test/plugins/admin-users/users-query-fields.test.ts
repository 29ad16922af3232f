/**
 * `POST /v1/admin/users` with `query`: a case-insensitive substring match on the user's id, email,
 * given_name, family_name and nickname, and on nothing else (middle_name, phone_number).
 */
import t from 'tap';
import { postJson } from '../../helpers/post-json.js';
import { startTestServer, TEST_ADMIN_SECRET } from '../../helpers/server.js';

t.test('the users query matches id, email, given_name, family_name and nickname', async (t) => {
  const server = await startTestServer();
  t.teardown(() => server.close());
  const base = server.url;
  const password = 'Query-pass-1';
  const signup = async (fields: Record<string, string>) => {
    const res = await postJson(base, '/v1/signup', { password, confirm_password: password, ...fields });
    t.equal(res.status, 200, `signup ${fields.email}`);
    return ((await res.json()) as { user: { id: string } }).user.id;
  };
  const ada = await signup({
    email: 'ada.mail@example.com',
    given_name: 'Augusta',
    family_name: 'Byron',
    nickname: 'Countess',
    middle_name: 'Middlesex',
    phone_number: '+15550104242',
  });
  const grace = await signup({
    email: 'grace@example.com',
    given_name: 'Grace',
    family_name: 'Hopper',
    nickname: 'Amazing',
  });

  const query = async (q: string) => {
    const res = await fetch(`${base}/v1/admin/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base, 'x-service-admin-secret': TEST_ADMIN_SECRET },
      body: JSON.stringify({ query: q }),
    });
    t.equal(res.status, 200);
    const body = (await res.json()) as { users: { id: string }[]; pagination: { total: number } };
    t.equal(body.pagination.total, body.users.length, `total counts the matches of ${q}`);
    return body.users.map((u) => u.id).sort();
  };

  t.same(await query('ADA.MAIL'), [ada], 'email, case-insensitive');
  t.same(await query('gusta'), [ada], 'given_name');
  t.same(await query('BYR'), [ada], 'family_name');
  t.same(await query('countESS'), [ada], 'nickname');
  t.same(await query(ada.slice(4, 20).toUpperCase()), [ada], 'id');
  t.same(await query('amazing'), [grace]);
  t.same(await query('example.com'), [ada, grace].sort(), 'both');
  t.same(await query('Middlesex'), [], 'middle_name is not searched');
  t.same(await query('5550104242'), [], 'phone_number is not searched');
});
