/**
 * Embedding: mounting Latchkey in a host Fastify app changes nothing global. Node's
 * `AsyncLocalStorage.prototype` and `http.ServerResponse.prototype` (and what it inherits from)
 * keep every property they had before the kernel's modules were loaded, through a mount, a sign-up
 * (a database transaction), a sign-in and a close. The snapshot is taken before the kernel's
 * modules are imported.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { OutgoingMessage, ServerResponse } from 'node:http';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';

type Snapshot = Map<string | symbol, PropertyDescriptor>;
const snapshot = (target: object): Snapshot =>
  new Map(Reflect.ownKeys(target).map((k) => [k, Object.getOwnPropertyDescriptor(target, k)!]));
const watched: [string, object][] = [
  ['AsyncLocalStorage.prototype', AsyncLocalStorage.prototype],
  ['http.ServerResponse.prototype', ServerResponse.prototype],
  ['http.OutgoingMessage.prototype', OutgoingMessage.prototype],
];
const before = watched.map(([name, target]) => [name, target, snapshot(target)] as const);

const [{ withDefaults }, { Kernel }, { defaultPlugins }, { latchkey }, { default: Fastify }] = await Promise.all([
  import('../../../core/config.js'),
  import('../../../core/kernel.js'),
  import('../../../plugins/default.js'),
  import('../../../transports/http/embed.js'),
  import('fastify'),
]);

/** The properties of `target` that differ from `was`: added, removed or replaced. */
function changes(target: object, was: Snapshot): string[] {
  const now = snapshot(target);
  const out: string[] = [];
  for (const [k, d] of now) {
    const old = was.get(k);
    if (!old) out.push(`added ${String(k)}`);
    else if (old.value !== d.value || old.get !== d.get || old.set !== d.set) out.push(`replaced ${String(k)}`);
  }
  for (const k of was.keys()) if (!now.has(k)) out.push(`removed ${String(k)}`);
  return out;
}

t.test("mounting the kernel leaves Node's prototypes as they were", async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'latchkey-embed-globals-'));
  const config = withDefaults(Kernel.flagsOf(defaultPlugins), {
    'database-type': 'sqlite',
    'database-url': join(dir, 'embed.db'),
    url: 'http://localhost:3000/auth',
    'admin-secret': 'embedded-admin',
    'client-id': 'host-app',
    'client-secret': 'host-secret',
    'jwt-type': 'HS256',
    'jwt-secret': 'embedded-jwt-secret',
    'log-level': 'silent',
  });
  const app = Fastify({ logger: false });
  await app.register(latchkey, { prefix: '/auth', plugins: defaultPlugins, config });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as { port: number }).port}/auth`;
  const post = (path: string, body: unknown) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'http://localhost:3000' },
      body: JSON.stringify(body),
    });
  const signup = await post('/v1/signup', {
    email: 'embedded@example.com',
    password: 'Embedded-pass-1',
    confirm_password: 'Embedded-pass-1',
  });
  t.equal(signup.status, 200, 'a sign-up ran (a database transaction)');
  const login = await post('/v1/login', { email: 'embedded@example.com', password: 'Embedded-pass-1' });
  t.equal(login.status, 200, 'a sign-in ran');
  t.equal(login.headers.get('x-frame-options'), 'DENY', 'the security headers come from the mounted scope');

  const check = (when: string) => {
    for (const [name, target, was] of before) t.strictSame(changes(target, was), [], `${name} untouched ${when}`);
  };
  check('while mounted');
  t.equal(AsyncLocalStorage.prototype.run, before[0][2].get('run')!.value, "Node's own AsyncLocalStorage run");
  await app.close();
  check('after closing');
});
