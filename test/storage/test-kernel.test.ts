/** The shared test helpers boot real kernels on every backend and clean up after themselves. */
import t from 'tap';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { defineEntity } from '@mikro-orm/core';
import { definePlugin } from '../../core/plugin.js';
import { newId } from '../../storage/index.js';
import { databaseTargets, redisAvailable } from '../helpers/databases.js';
import { bootTestKernel, testContext } from '../helpers/kernel.js';

const Note = defineEntity({
  name: 'TestNote',
  tableName: 'test_notes',
  properties: (p) => ({ id: p.string().primary(), text: p.string() }),
});

const notes = definePlugin({
  name: 'notes',
  description: 'test plugin',
  flags: [{ name: 'notes-greeting', type: 'string', description: 'x', default: 'hello' }],
  entities: [Note],
  meta: (config) => ({ notes_greeting: config.string('notes-greeting', '') }),
});

t.test('defaults: a fresh SQLite file and the process memory store, removed on close', async (t) => {
  const { kernel, config, close } = await bootTestKernel({ plugins: [notes] });
  t.equal(kernel.storage.type, 'sqlite');
  t.equal(kernel.memory.backend, 'process');
  t.equal(config.string('notes-greeting'), 'hello', 'plugin flag defaults apply');
  const file = config.string('database-url')!;
  t.ok(existsSync(file));
  const em = kernel.storage.em();
  em.create(Note, { id: newId(), text: 'hi' });
  await em.flush();
  t.equal(await kernel.storage.em().count(Note), 1);
  await close();
  t.notOk(existsSync(dirname(file)), 'temp folder removed');
});

t.test('flags override defaults', async (t) => {
  const { kernel, close } = await bootTestKernel({ plugins: [notes], flags: { 'notes-greeting': 'hey' } });
  t.teardown(close);
  t.same(kernel.metaValues(), { notes_greeting: 'hey' });
});

t.test('testContext builds an internal request context', async (t) => {
  const { kernel, close } = await bootTestKernel({ plugins: [notes] });
  t.teardown(close);
  const ctx = testContext(kernel, {
    headers: { Authorization: 'Bearer abc', 'User-Agent': 'tap' },
    cookies: { s: '1' },
  });
  t.equal(ctx.transport, 'internal');
  t.equal(ctx.ip, '127.0.0.1');
  t.equal(ctx.bearer(), 'abc', 'header names are lower-cased');
  t.equal(ctx.cookie('s'), '1');
  t.equal(ctx.kernel, kernel);
  const withPrincipal = testContext(kernel, { transport: 'rest', principal: { kind: 'user', subject: 'user:1' } });
  t.equal(withPrincipal.requirePrincipal().subject, 'user:1');
});

const targets = await databaseTargets();
t.teardown(() => Promise.all(targets.map((d) => d.dispose())));
const redis = await redisAvailable();

for (const target of targets) {
  for (const memory of ['database', ...(redis ? ['redis' as const] : [])] as const) {
    t.test(`${target.name} with the ${memory} memory store`, async (t) => {
      const { kernel, close } = await bootTestKernel({ plugins: [notes], database: target, memory });
      t.teardown(close);
      t.equal(kernel.storage.type, target.type);
      t.equal(kernel.memory.backend, memory);
      t.equal(await kernel.memory.setIfAbsent('k', 'v', 10_000), true);
      t.equal(await kernel.memory.consume('k'), 'v');
    });
  }
}
