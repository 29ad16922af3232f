/** Account scenarios through `kernel.invoke` (the pipeline every transport uses), on SQLite. */
import t from 'tap';
import { decodeJwt } from 'jose';
import { bootAccounts, call, callWithContext, PASSWORD, signup, type Auth } from './helpers.js';

const tk = await bootAccounts({
  'enable-mobile-basic-authentication': true,
  roles: ['user', 'editor'],
  'protected-roles': ['admin'],
});
const { kernel } = tk;
t.teardown(() => tk.close());

t.test('signup returns tokens, sets both cookies, and the id token carries the contract claims', async (t) => {
  const { result, ctx } = await callWithContext(kernel, 'signup', {
    email: 'Alice@Example.com',
    password: PASSWORD,
    confirm_password: PASSWORD,
    given_name: 'Alice',
  });
  const auth = result as unknown as Auth;
  t.equal(auth.user.email, 'alice@example.com', 'email stored lowercase');
  t.same(auth.user.roles, ['user'], 'default roles');
  t.equal(auth.refresh_token, undefined, 'no refresh token without offline_access');
  const names = ctx.setCookies.map((c) => c.name).sort();
  t.same(names, ['cookie_session', 'cookie_session_domain']);
  const domainCookie = ctx.setCookies.find((c) => c.name === 'cookie_session_domain')!;
  t.equal(domainCookie.options.domain, 'example.com');
  t.equal(domainCookie.options.httpOnly, true);
  t.notMatch(domainCookie.value, auth.user.id, 'cookie is opaque');
  const id = decodeJwt(auth.id_token);
  t.equal(id.iss, 'https://auth.example.com');
  t.equal(id.aud, 'client-1');
  t.equal(id.sub, auth.user.id);
  t.ok(id.at_hash && id.auth_time && Array.isArray(id.amr), 'at_hash, auth_time, amr');
  t.same(id.role, ['user'], '--jwt-role-claim default role');
  const access = decodeJwt(auth.access_token);
  t.equal((access.exp as number) - (access.iat as number), 1800, 'access token lives 30 minutes');
  t.equal(auth.expires_in, access.exp, 'expires_in is the expiry timestamp');
});

t.test('duplicate email and phone, and concurrent signups of one email', async (t) => {
  await t.rejects(signup(kernel, 'alice@example.com'), {
    code: 'already_exists',
    message: 'user with given email already exists',
  });
  await call(kernel, 'signup', { phone_number: '+15550001', password: PASSWORD, confirm_password: PASSWORD });
  await t.rejects(
    call(kernel, 'signup', { phone_number: '+15550001', password: PASSWORD, confirm_password: PASSWORD }),
    {
      message: 'user with given email already exists',
    },
  );
  // `00` is the international prefix: the same number, not a second account.
  for (const spelled of ['0015550001', '00 1 555-0001', '+1 (555) 0001']) {
    await t.rejects(
      call(kernel, 'signup', { phone_number: spelled, password: PASSWORD, confirm_password: PASSWORD }),
      { message: 'user with given email already exists' },
      spelled,
    );
  }
  t.ok(
    await call(kernel, 'login', { phone_number: '0015550001', password: PASSWORD }),
    'and logs in to the same account',
  );
  const results = await Promise.allSettled(Array.from({ length: 6 }, () => signup(kernel, 'race@example.com')));
  t.equal(results.filter((r) => r.status === 'fulfilled').length, 1, 'exactly one concurrent signup wins');
  const { users } = await call<{ users: unknown[] }>(kernel, '_users', { query: 'race@' }, { admin: true });
  t.equal(users.length, 1, 'one record written');
});

t.test('bad input is a 4xx and writes nothing', async (t) => {
  const bad: [string, unknown][] = [
    ['missing password', { email: 'x1@example.com', confirm_password: PASSWORD }],
    ['wrong type', { email: 'x2@example.com', password: 123, confirm_password: PASSWORD }],
    ['unknown field', { email: 'x3@example.com', password: PASSWORD, confirm_password: PASSWORD, admin: true }],
    [
      'oversized',
      { email: 'x4@example.com', given_name: 'a'.repeat(5000), password: PASSWORD, confirm_password: PASSWORD },
    ],
    ['malformed email', { email: 'not-an-email', password: PASSWORD, confirm_password: PASSWORD }],
    ['mismatch', { email: 'x5@example.com', password: PASSWORD, confirm_password: 'other-123' }],
    ['short password', { email: 'x6@example.com', password: 'abc', confirm_password: 'abc' }],
    ['protected role', { email: 'x7@example.com', password: PASSWORD, confirm_password: PASSWORD, roles: ['admin'] }],
    ['no identifier', { password: PASSWORD, confirm_password: PASSWORD }],
  ];
  for (const [what, input] of bad) await t.rejects(call(kernel, 'signup', input), { code: 'invalid_argument' }, what);
  const { users } = await call<{ users: { email?: string }[] }>(kernel, '_users', { query: 'x' }, { admin: true });
  t.same(
    users.filter((u) => /^x\d@/.test(u.email ?? '')),
    [],
    'no record written',
  );
});

t.test('login by email and phone; wrong password; lockout after five failures', async (t) => {
  const ok = await call<Auth>(kernel, 'login', {
    email: 'ALICE@example.com',
    password: PASSWORD,
    scope: ['openid', 'offline_access'],
  });
  t.ok(ok.refresh_token, 'offline_access gives a refresh token');
  const byPhone = await call<Auth>(kernel, 'login', { phone_number: '+15550001', password: PASSWORD });
  t.equal(byPhone.user.phone_number, '+15550001');
  await t.rejects(call(kernel, 'login', { email: 'nobody@example.com', password: PASSWORD }), {
    code: 'unauthenticated',
    message: 'bad user credentials',
  });
  await signup(kernel, 'lock@example.com');
  for (let i = 0; i < 4; i++)
    await t.rejects(call(kernel, 'login', { email: 'lock@example.com', password: 'wrong-pass' }), {
      code: 'unauthenticated',
    });
  await t.rejects(
    call(kernel, 'login', { email: 'lock@example.com', password: 'wrong-pass' }),
    { code: 'resource_exhausted' },
    'fifth failure locks',
  );
  await t.rejects(
    call(kernel, 'login', { email: 'lock@example.com', password: PASSWORD }),
    { code: 'resource_exhausted' },
    'right password refused while locked',
  );
});

t.test('profile, session rotation, logout: stateful tokens', async (t) => {
  const auth = await signup(kernel, 'bob@example.com', { roles: ['editor'] });
  const profile = await call<{ email: string; roles: string[] }>(kernel, 'profile', undefined, {
    bearer: auth.access_token,
  });
  t.equal(profile.email, 'bob@example.com');
  t.same(profile.roles, ['editor']);
  const valid = await call<{ is_valid: boolean; claims: Record<string, unknown> }>(kernel, 'validate_jwt_token', {
    token_type: 'access_token',
    token: auth.access_token,
    roles: ['editor'],
  });
  t.equal(valid.is_valid, true);
  t.equal(
    (
      await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
        token_type: 'access_token',
        token: auth.access_token,
        roles: ['user'],
      })
    ).is_valid,
    false,
    'missing role',
  );
  const relations = await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
    token_type: 'access_token',
    token: auth.access_token,
    required_relations: [{ relation: 'viewer', object: 'doc:1' }],
  });
  t.equal(relations.is_valid, false, 'relations fail closed without FGA');
  // A session narrows its scopes, never widens them: no refresh token for a login without
  // offline_access (a stolen access token must not become a 30-day refresh token).
  const short = await call<Auth>(kernel, 'login', { email: 'bob@example.com', password: PASSWORD });
  await t.rejects(
    call(kernel, 'session', { scope: ['openid', 'offline_access'] }, { bearer: short.access_token }),
    { code: 'invalid_argument', message: 'scope "offline_access" was not granted to this session' },
    'offline_access added later',
  );
  const narrowed = await call<Auth>(kernel, 'session', { scope: ['openid'] }, { bearer: short.access_token });
  t.equal(narrowed.refresh_token, undefined, 'no refresh token');
  const narrowedClaims = await call<{ claims: { scope: string } }>(kernel, 'validate_jwt_token', {
    token_type: 'access_token',
    token: narrowed.access_token,
  });
  t.equal(narrowedClaims.claims.scope, 'openid', 'narrowed to openid');
  const { result, ctx } = await callWithContext(kernel, 'session', {}, auth.access_token);
  const rotated = result as unknown as Auth;
  t.not(rotated.access_token, auth.access_token);
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: auth.access_token }),
    { code: 'unauthenticated' },
    'rotation ends the old session',
  );
  const cookie = ctx.setCookies.find((c) => c.name === 'cookie_session')!.value;
  const vs = await call<{ is_valid: boolean; user: { email: string } }>(kernel, 'validate_session', { cookie });
  t.equal(vs.is_valid, true);
  t.equal(vs.user.email, 'bob@example.com');
  const viaCookie = await call<{ email: string }>(kernel, 'profile', undefined, {
    cookies: { cookie_session: cookie },
  });
  t.equal(viaCookie.email, 'bob@example.com', 'cookie authenticates');
  await call(kernel, 'logout', undefined, { bearer: rotated.access_token });
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: rotated.access_token }),
    { code: 'unauthenticated' },
    'logout takes effect on the next request',
  );
  t.equal((await call<{ is_valid: boolean }>(kernel, 'validate_session', { cookie })).is_valid, false);
  t.equal(
    (
      await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
        token_type: 'access_token',
        token: rotated.access_token,
      })
    ).is_valid,
    false,
  );
  t.equal((await call<{ is_valid: boolean }>(kernel, 'validate_session', { cookie: 'forged' })).is_valid, false);
});

t.test('refresh tokens: single use, reuse revokes the family, revoke', async (t) => {
  const auth = await call<Auth>(kernel, 'login', {
    email: 'bob@example.com',
    password: PASSWORD,
    scope: ['openid', 'offline_access'],
  });
  const tokens = kernel.service('tokens');
  t.equal(
    (
      await call<{ is_valid: boolean }>(kernel, 'validate_jwt_token', {
        token_type: 'refresh_token',
        token: auth.refresh_token,
      })
    ).is_valid,
    true,
  );
  const first = await tokens.refresh(auth.refresh_token!);
  t.ok(first.tokens.refresh_token, 'rotated');
  // Its successor used, a spent token is reuse even within the reuse grace.
  const next = await tokens.refresh(first.tokens.refresh_token!);
  await t.rejects(tokens.refresh(auth.refresh_token!), { code: 'unauthenticated' }, 'spent token refused');
  t.equal(await tokens.verifyAccessToken(next.tokens.access_token), null, 'reuse revoked the family (session)');
  await t.rejects(tokens.refresh(next.tokens.refresh_token!), 'the newer token died with its family');
  const again = await call<Auth>(kernel, 'login', {
    email: 'bob@example.com',
    password: PASSWORD,
    scope: ['offline_access'],
  });
  t.same(await call(kernel, 'revoke', { refresh_token: again.refresh_token }), {
    message: 'Token revoked successfully',
  });
  await t.rejects(tokens.refresh(again.refresh_token!), 'revoked refresh token refused');
  t.equal(await tokens.verifyAccessToken(again.access_token), null, 'revoke ends the session');
});

t.test('update_profile: fields, uniqueness, password change', async (t) => {
  const carol = await signup(kernel, 'carol@example.com');
  await call(
    kernel,
    'update_profile',
    { given_name: 'Carol', app_data: { theme: 'dark' } },
    { bearer: carol.access_token },
  );
  const p = await call<{ given_name: string; app_data: unknown }>(kernel, 'profile', undefined, {
    bearer: carol.access_token,
  });
  t.equal(p.given_name, 'Carol');
  t.same(p.app_data, { theme: 'dark' });
  await t.rejects(call(kernel, 'update_profile', { email: 'bob@example.com' }, { bearer: carol.access_token }), {
    message: 'user with given email already exists',
  });
  await t.rejects(call(kernel, 'update_profile', {}, { bearer: carol.access_token }), { code: 'invalid_argument' });
  await t.rejects(
    call(
      kernel,
      'update_profile',
      { old_password: 'wrong-1', new_password: 'New-pass-1', confirm_new_password: 'New-pass-1' },
      { bearer: carol.access_token },
    ),
    { code: 'invalid_argument' },
  );
  await call(
    kernel,
    'update_profile',
    { old_password: PASSWORD, new_password: 'New-pass-1', confirm_new_password: 'New-pass-1' },
    { bearer: carol.access_token },
  );
  await t.rejects(call(kernel, 'login', { email: 'carol@example.com', password: PASSWORD }), {
    code: 'unauthenticated',
  });
  await call(kernel, 'login', { email: 'carol@example.com', password: 'New-pass-1' });
  await call(
    kernel,
    'update_profile',
    { email: 'carol2@example.com' },
    {
      bearer: (await call<Auth>(kernel, 'login', { email: 'carol@example.com', password: 'New-pass-1' })).access_token,
    },
  );
  await call(kernel, 'login', { email: 'carol2@example.com', password: 'New-pass-1' });
});

t.test('deactivate_account ends sessions and blocks login', async (t) => {
  const dave = await signup(kernel, 'dave@example.com');
  await call(kernel, 'deactivate_account', undefined, { bearer: dave.access_token });
  await t.rejects(call(kernel, 'profile', undefined, { bearer: dave.access_token }), { code: 'unauthenticated' });
  await t.rejects(call(kernel, 'login', { email: 'dave@example.com', password: PASSWORD }), {
    code: 'permission_denied',
    message: 'user access has been revoked',
  });
});

t.test('admin: list, search, get, update, revoke/enable access with events, delete', async (t) => {
  const erin = await signup(kernel, 'erin@example.com', { nickname: 'ErinTheGreat' });
  const events: string[] = [];
  const off = kernel.events.on('*', (e) => void events.push(e.name));
  t.teardown(off);
  await t.rejects(call(kernel, '_users', {}), { code: 'unauthenticated' }, 'admin only');
  const found = await call<{ users: { id: string }[]; pagination: { total: number } }>(
    kernel,
    '_users',
    { query: 'THEGREAT' },
    { admin: true },
  );
  t.same(
    found.users.map((u) => u.id),
    [erin.user.id],
    'case-insensitive nickname search',
  );
  for (const across of ['example.com\nerin', 'EXAMPLE.COM\nERINTHE', '.com\nerinthegreat']) {
    const none = await call<{ users: unknown[]; pagination: { total: number } }>(
      kernel,
      '_users',
      { query: across },
      { admin: true },
    );
    t.same([none.users.length, none.pagination.total], [0, 0], `no match across two fields: ${JSON.stringify(across)}`);
  }
  const page = await call<{
    users: unknown[];
    pagination: { limit: number; page: number; total: number; offset: number };
  }>(kernel, '_users', { pagination: { limit: 2, page: 2 } }, { admin: true });
  t.equal(page.users.length, 2);
  t.equal(page.pagination.offset, 2);
  t.ok(page.pagination.total >= 6);
  t.equal(
    (await call<{ email: string }>(kernel, '_user', { email: 'erin@example.com' }, { admin: true })).email,
    'erin@example.com',
  );
  const updated = await call<{ roles: string[] }>(
    kernel,
    '_update_user',
    { id: erin.user.id, roles: ['admin', 'user'] },
    { admin: true },
  );
  t.same(updated.roles, ['admin', 'user'], 'admin may grant protected roles');
  await t.rejects(call(kernel, '_update_user', { id: erin.user.id, roles: ['root'] }, { admin: true }), {
    code: 'invalid_argument',
  });
  await t.rejects(
    call(kernel, '_update_user', { id: erin.user.id }, { admin: true }),
    { code: 'invalid_argument', message: 'please enter at least one param to update' },
    'nothing to change',
  );
  await t.rejects(
    call(kernel, '_update_user', { id: erin.user.id, email: '', phone_number: '' }, { admin: true }),
    { code: 'invalid_argument', message: 'a user needs an email address or a phone number' },
    'clearing the only identifiers is refused',
  );
  await t.rejects(
    call(kernel, '_update_user', { id: erin.user.id, email: '' }, { admin: true }),
    { code: 'invalid_argument' },
    'erin has no phone: her email stays',
  );
  t.equal(
    (await call<{ email: string }>(kernel, '_user', { id: erin.user.id }, { admin: true })).email,
    'erin@example.com',
    'unchanged',
  );
  const login = await call<Auth>(kernel, 'login', { email: 'erin@example.com', password: PASSWORD });
  await call(kernel, '_revoke_access', { user_id: erin.user.id }, { admin: true });
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: login.access_token }),
    { code: 'unauthenticated' },
    'admin revoke takes effect at once',
  );
  const revokedAt = (await call<{ revoked_timestamp?: number }>(kernel, '_user', { id: erin.user.id }, { admin: true }))
    .revoked_timestamp;
  t.ok(revokedAt);
  // Revoking again keeps the first moment and sends no second event.
  await kernel.events.drain();
  const before = events.length;
  await new Promise((r) => setTimeout(r, 1100));
  await call(kernel, '_revoke_access', { user_id: erin.user.id }, { admin: true });
  t.equal(
    (await call<{ revoked_timestamp?: number }>(kernel, '_user', { id: erin.user.id }, { admin: true }))
      .revoked_timestamp,
    revokedAt,
    'the first revocation time stays',
  );
  await kernel.events.drain();
  t.equal(events.length, before, 'no second user.access_revoked');
  await call(kernel, '_enable_access', { user_id: erin.user.id }, { admin: true });
  await call(kernel, '_enable_access', { user_id: erin.user.id }, { admin: true });
  await kernel.events.drain();
  t.equal(events.filter((e) => e === 'user.access_enabled').length, 1, 'enabling twice is one user.access_enabled');
  t.equal(
    (await call<{ revoked_timestamp?: number }>(kernel, '_user', { id: erin.user.id }, { admin: true }))
      .revoked_timestamp,
    undefined,
  );
  await call(kernel, 'login', { email: 'erin@example.com', password: PASSWORD });
  await call(kernel, '_delete_user', { id: erin.user.id }, { admin: true });
  await t.rejects(call(kernel, '_user', { id: erin.user.id }, { admin: true }), { code: 'not_found' });
  await t.rejects(
    call(kernel, '_delete_user', { email: 'bob@example.com' }, { admin: true }),
    { code: 'invalid_argument' },
    'delete by id only',
  );
  await kernel.events.drain();
  for (const e of ['user.access_revoked', 'user.access_enabled', 'user.deleted']) t.ok(events.includes(e), e);
});

t.test('admin update_user: the same roles again keep the sessions; changed ones end them', async (t) => {
  const user = await signup(kernel, 'same-roles@example.com');
  await call(kernel, '_update_user', { id: user.user.id, roles: ['user'] }, { admin: true });
  t.ok(await call(kernel, 'profile', undefined, { bearer: user.access_token }), 'the roles it had: still signed in');
  await call(kernel, '_update_user', { id: user.user.id, roles: ['user', 'user'] }, { admin: true });
  t.ok(
    await call(kernel, 'profile', undefined, { bearer: user.access_token }),
    'the same set, named twice: still signed in',
  );
  await call(kernel, '_update_user', { id: user.user.id, roles: ['user', 'editor'] }, { admin: true });
  await t.rejects(
    call(kernel, 'profile', undefined, { bearer: user.access_token }),
    { code: 'unauthenticated' },
    'a role added: signed out',
  );
});

t.test('admin update_user: only an address that is there can be marked verified', async (t) => {
  const user = await signup(kernel, 'no-phone@example.com');
  await t.rejects(call(kernel, '_update_user', { id: user.user.id, phone_number_verified: true }, { admin: true }), {
    code: 'invalid_argument',
    message: 'a user without a phone number cannot have it verified',
  });
  const both = await call<{ phone_number: string; phone_number_verified: boolean }>(
    kernel,
    '_update_user',
    { id: user.user.id, phone_number: '+15550009876', phone_number_verified: true },
    { admin: true },
  );
  t.same(
    [both.phone_number, both.phone_number_verified],
    ['+15550009876', true],
    'a number given with the flag may be marked',
  );
  await t.rejects(
    call(kernel, '_update_user', { id: user.user.id, email: '', email_verified: true }, { admin: true }),
    { code: 'invalid_argument', message: 'a user without an email address cannot have it verified' },
  );
  const unchanged = await call<{ email: string }>(kernel, '_user', { id: user.user.id }, { admin: true });
  t.equal(unchanged.email, 'no-phone@example.com', 'the refused call changed nothing');
});

t.test('update_profile: an empty phone number removes it while the email stays; the only address stays', async (t) => {
  const dana = await signup(kernel, 'dana@example.com', { phone_number: '+15550004321' });
  await call(kernel, 'update_profile', { phone_number: '' }, { bearer: dana.access_token });
  const p = await call<{ phone_number?: string | null }>(kernel, 'profile', undefined, { bearer: dana.access_token });
  t.notOk(p.phone_number, 'the number is gone');
  await t.rejects(
    call(kernel, 'login', { phone_number: '+15550004321', password: PASSWORD }),
    { code: 'unauthenticated' },
    'and no longer signs in',
  );
  const phoneOnly = await call<Auth>(kernel, 'signup', {
    phone_number: '+15550004322',
    password: PASSWORD,
    confirm_password: PASSWORD,
  });
  await t.rejects(
    call(kernel, 'update_profile', { phone_number: '' }, { bearer: phoneOnly.access_token }),
    { code: 'invalid_argument', message: 'a user needs an email address or a phone number' },
    'a user with only a number keeps it',
  );
  await t.rejects(
    call(kernel, 'update_profile', { email: '' }, { bearer: dana.access_token }),
    { code: 'invalid_argument', message: 'invalid email address' },
    'the email is not removable',
  );
});
