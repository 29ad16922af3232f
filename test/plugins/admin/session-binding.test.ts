/**
 * An admin session holds only while the admin secret it was opened with is in force: changing
 * `--admin-secret` ends every admin session, although they live in the memory store (the
 * database by default) and outlast a restart.
 */
import t from 'tap';
import { adminSessionValid, endAdminSession, startAdminSession } from '../../../plugins/admin/session.js';
import { ProcessMemoryStore } from '../../../storage/memory/process.js';

t.test('a session opened under one secret is refused under another', async (t) => {
  const memory = new ProcessMemoryStore();
  const token = await startAdminSession(memory, 'old-secret');
  t.equal(await adminSessionValid(memory, token, 'old-secret'), true, 'valid under its own secret');
  t.equal(await adminSessionValid(memory, token, 'rotated-secret'), false, 'refused once the secret changed');
  t.equal(await adminSessionValid(memory, `${token}x`, 'old-secret'), false, 'another token is no session');
  const stored = (await memory.keys('admin-session:')).map(async (k) => memory.get(k));
  for (const value of await Promise.all(stored))
    t.notMatch(value ?? '', /old-secret/, 'the record does not hold the secret');
  await endAdminSession(memory, token);
  t.equal(await adminSessionValid(memory, token, 'old-secret'), false, 'logout ends it');
});
