/**
 * The test server helper cleans up after itself: a server whose boot fails leaves no temporary
 * folder behind, and a started one removes its folder when closed. Each case points TMPDIR at a
 * folder of its own, so parallel test files creating folders of their own cannot disturb the count.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { startTestServer } from './server.js';

async function withOwnTmpdir(t: Test): Promise<string> {
  const own = await mkdtemp(join(tmpdir(), 'latchkey-helper-'));
  const before = process.env.TMPDIR;
  process.env.TMPDIR = own;
  t.teardown(async () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    await rm(own, { recursive: true, force: true });
  });
  return own;
}

t.test('a server whose boot fails leaves no folder behind', async (t) => {
  const own = await withOwnTmpdir(t);
  // RS256 without keys: the tokens plugin refuses to start (startup refusals).
  await t.rejects(startTestServer({ flags: { 'jwt-type': 'RS256' } }), 'the start fails');
  t.same(await readdir(own), [], 'its temporary folder is gone');
});

t.test('a started server keeps its folder until it is closed', async (t) => {
  const own = await withOwnTmpdir(t);
  const server = await startTestServer();
  t.equal((await readdir(own)).filter((n) => n.startsWith('latchkey-test-')).length, 1, 'one folder while it runs');
  const health = await fetch(`${server.url.replace('localhost', '127.0.0.1')}/healthz`);
  t.equal(health.status, 200, 'it answers');
  await server.close();
  t.same(await readdir(own), [], 'the folder is removed on close');
});
